import Foundation
import Observation
import Synchronization

/// The one reference behind every ``Shared`` of a key in a context: the value under a lock, its
/// observation, and the state machine of its persistence.
///
/// Its capabilities live beside it: mutation (`SharedReference+Mutation.swift`), and under
/// `Reference/` its persistence: the machine that decides (`PersistenceMachine.swift`), the
/// steps that perform its decisions (`SharedReference+Persistence.swift`) and the requests the
/// app makes of it (`SharedReference+Requests.swift`).
///
/// Locks: at most three a reference, in this order when two are held:
/// 1. the inline-save lock (``PersistenceParts/inlineSaves``), made only by keys that store
///    through their own `save` (preferences, custom keys), and held across it;
/// 2. the value's (`storage`, which also guards `generation`, `savedGeneration` and `base`);
/// 3. a file key's own: what the reference knows of its file (``KnownFile``, whose lock also
///    guards its ``SyncState``), taken by a merge, which runs under the value's lock.
///
/// The persistence's lock (``PersistenceParts``: the machine, the bodies of `update`s, the
/// conflict streams and the links: the subscription to outside changes and the change
/// listeners) is never held with another. Nothing calls out (to the key, the registrar, a
/// listener or a waiter) with a lock held, except the key's save and the merge above. A key that
/// stores through its own `save` is never a file key, so no reference has more than three.
@usableFromInline
final class SharedReference<Value: Sendable>: AnySharedReference {
  let key: any SharedKey<Value>
  /// The parts of a key whose stored data other writers share (a file), if it is one.
  private let shared: CoordinatedParts<Value>?
  /// The key as storage whose other writers must be coordinated with, if it is one.
  var coordinated: (any CoordinatedKey<Value>)? { shared?.key }
  @usableFromInline let context: StorageContext
  /// The key path Observation knows the value by (`ReferenceObservation.valuePath`), which lives
  /// as long as the process.
  ///
  /// NB: kept in each reference: the global, read from inlined code, is a call of its accessor
  /// and of `swift_once` at every read and change, which cost some machines twice the
  /// `@Observable` floor's time (see "Reads" in `Benchmarks/README.md`). Unmanaged, because a key
  /// path read from a class and passed on was retained and released at each use, on the slow
  /// path of the reference count.
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  @usableFromInline nonisolated(unsafe) let valueKeyPath = Unmanaged.passUnretained(
    ReferenceObservation.valuePath)
  /// Whether the value was ever read (and so may be observed); see ``withLock(_:)``.
  @usableFromInline let hasBeenRead = Atomic<Bool>(false)
  /// Whether mutations are saved anywhere (everything but in-memory values).
  @usableFromInline let persists: Bool
  /// Where the value goes when this reference dies, for a key that keeps it only in memory.
  private let parkingSlot: ReferenceSlot?
  /// Counts mutations; a save records the generation it wrote in `savedGeneration`.
  // NB: guarded by the `storage` lock (read and written only inside it), so a mutation of a file
  // key costs no atomic read-modify-write; and so exempt from the run-time exclusivity check of
  // a class's variable, which was a sizable part of a small mutation of a file key, such as an
  // append.
  @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var generation: UInt64 = 0
  /// The generation last written or read: the value has a pending change when it differs.
  // NB: guarded by the `storage` lock, like `generation`.
  @exclusivity(unchecked) nonisolated(unsafe) var savedGeneration: UInt64 = 0
  /// What this reference last read or wrote, the base of a three-way merge; kept only for keys
  /// that merge.
  // NB: guarded by the `storage` lock, like `generation`; kept by the coordinated parts, so
  // other keys never store an optional of the value (a metadata lookup on every creation).
  var base: Value? {
    get { shared?.base }
    set { shared?.base = newValue }
  }
  /// Every decision of the persistence (see `PersistenceMachine`), under its own lock, and what
  /// runs them: made with the reference, except for an in-memory key's, made when first used
  /// (most never are: they are for what a key stores elsewhere).
  ///
  /// NB: apart from the reference, so an in-memory key's reference is less than half its size
  /// (the machine, the lanes and the requests' locks were about 500 of its 700 bytes, written at
  /// every key's creation).
  var persistence: PersistenceParts {
    if let made = madePersistence.load() { return made }
    return madePersistence.storeIfNil(
      PersistenceParts(
        PersistenceMachine(
          storage: .ownKey(inline: false), interval: key.saveTiming.interval,
          lockTimeout: FileLock.defaultTimeout, loadError: nil, isLoading: false),
        lane: nil))
  }
  private let madePersistence = AtomicLazyReference<PersistenceParts>()
  /// Whether a save that will see the next mutation is already armed (or a transaction is open,
  /// whose end writes): mutations then skip telling the machine.
  @usableFromInline let saveIsArmed = Atomic<Bool>(false)
  /// Saves, reloads and flushes run here, in order, never on a mutating thread.
  var lane: any PersistenceLane {
    persistence.lane { context.scheduler.makeLane(for: key.id) }
  }
  /// What the running job carries between its steps, made by its first job.
  // NB: touched only on `lane`, which runs one thing at a time; made lazily, so a key that never
  // runs a job (most in-memory values) never allocates it.
  // NB: typed `AnyObject`, so a reference's creation stores `nil` without a metadata lookup of
  // an optional of the generic type.
  private nonisolated(unsafe) var madeWork: AnyObject?

  /// What the running job carries between its steps; use only on `lane`.
  var work: PersistenceWork<Value> {
    if let madeWork { return unsafeDowncast(madeWork, to: PersistenceWork<Value>.self) }
    let work = PersistenceWork<Value>()
    madeWork = work
    return work
  }
  /// Whether anything listens, so a change without listeners costs one relaxed load.
  @usableFromInline let hasChangeListeners = Atomic<Bool>(false)

  // NB: the stored properties whose size is not known where the class is compiled come last:
  // the value's (two) and the registrar's (a type of a module built for library evolution). A
  // property after one of them has an offset known only at run time, read from the class's
  // metadata at every use; a read paid three such loads, each after the load of the metadata
  // (whether the value was read, the registrar, the key path), where the registrar alone now
  // pays one.
  /// The value, under its lock.
  @usableFromInline let storage: Mutex<Value>
  /// What Observation sees of the value and the status.
  @usableFromInline let observation = ReferenceObservation()
  /// The default: the value when nothing is stored, and again when the stored data is deleted.
  let fallback: Value

  /// Creates the reference and reads the stored value synchronously, so the first read of a
  /// key sees what is stored.
  ///
  /// NB: the work that only some kinds of key need is in functions of their own, not inlined
  /// here: in this generic code each generic type it names (a file key, an optional of the
  /// value) is a metadata lookup at run time, which the optimizer hoists to the start, so an
  /// in-memory key paid for a file key's.
  ///
  /// `inMemory` tells whether `given` is an ``InMemoryKey``, which stores nothing but this
  /// reference, and `shared` holds the parts of a coordinated key (`given` is then its key): the
  /// caller knows both, often at compile time (a cast here for either was a sizable part of a
  /// key's creation: see "Costs the code avoids" in Benchmarks/README.md). A reference of a key
  /// that does not persist parks its value in `slot` when it dies; `revive` sets the value a
  /// previous one parked.
  init(
    key given: any SharedKey<Value>, shared: CoordinatedParts<Value>?, context: StorageContext,
    default makeDefault: () -> Value, inMemory: Bool, parkingIn slot: ReferenceSlot? = nil,
    revive: ((inout Value) -> Void)? = nil
  ) {
    let persists = given.saveTiming.persists
    self.key = given
    self.shared = shared
    self.context = context
    self.persists = persists
    let loadsLater: Bool
    if let shared {
      loadsLater = shared.loadsInBackground
    } else if inMemory {
      loadsLater = false
    } else {
      loadsLater = (given as? any BackgroundLoadingKey)?.loadsInBackground ?? false
    }
    let fallback = makeDefault()
    self.fallback = fallback
    var value = fallback
    revive?(&value)
    self.parkingSlot = slot
    // NB: a key that loads in the background starts from its default; the load arrives through
    // the outside-change path, which merges with any change made meanwhile. An in-memory key
    // stores nothing but this reference.
    let loadError =
      loadsLater || inMemory || revive != nil
      ? nil : Self.load(given, shared: shared, into: &value, in: context)
    self.storage = Mutex(value)
    shared?.keepBase(value)
    // NB: an in-memory key's machine is made when first used (see `machine`), and it has
    // nothing to watch.
    guard !inMemory else { return }
    _ = madePersistence.storeIfNil(
      PersistenceParts(
        PersistenceMachine(
          storage: PersistenceMachine.storage(of: given, shared: shared),
          interval: given.saveTiming.interval, lockTimeout: FileLock.defaultTimeout,
          loadError: loadError, isLoading: loadsLater),
        lane: persists ? context.scheduler.makeLane(for: given.id) : nil))
    watch(fallback: fallback, loadsLater: loadsLater)
  }

  /// Reads the stored value of `given` (of `shared`'s key, for a coordinated key) into `value`;
  /// the error, if it cannot.
  @inline(never)
  private static func load(
    _ given: any SharedKey<Value>, shared: CoordinatedParts<Value>?, into value: inout Value,
    in context: StorageContext
  ) -> SharedLoadError? {
    let key = shared?.anyKey ?? given
    do {
      if let stored = try key.load(in: context) { value = stored }
      return nil
    } catch {
      return loadError(error, key: key)
    }
  }

  /// Subscribes to outside changes of the stored data (and, for a file, to a sync engine's
  /// copies), and reads a file that loads in the background.
  @inline(never)
  private func watch(fallback: Value, loadsLater: Bool) {
    // Devices: a sync engine's copies, merged by the key (`Sync/`), are reported to the machine
    // like another process's save.
    let scheduler = context.scheduler
    let timing = ReportTiming(
      now: { scheduler.now() },
      after: { [weak self] delay, work in self?.lane.after(delay, work) })
    shared?.key.reportSyncConflicts(fallback: fallback, timing: timing) { [weak self] conflict in
      self?.send(
        .conflictReported(
          conflict.resolution, otherDevice: conflict.otherDevice,
          byAnotherProcess: conflict.keptByAnotherProcess, copy: conflict.copy))
    }
    let subscription = key.subscribe(in: context) { [weak self] in
      self?.outsideChange()
    }
    persistence.withLinks { $0.subscription = subscription }
    // NB: a file read in the background is read as an outside change; a reader key's first load
    // arrives through its subscription.
    if loadsLater && shared != nil { outsideChange() }
    if persists { ExitFlush.watch(context) }
  }

  deinit {
    // NB: parked first: until it is, a new reference of the key waits for this one (see
    // `ReferenceSlot`), so nothing that could run the app's code (a subscription's
    // cancellation) comes before it.
    parkingSlot?.park(
      ParkedValue(value: storage.withLock { $0 }, fallback: fallback),
      from: ObjectIdentifier(self))
    // NB: a reference whose persistence was never made has no links to end.
    madePersistence.load()?.withLinks { $0.subscription }?.cancel()
    // NB: a reference that persists dies only once no Shared holds it and no save is pending
    // (a scheduled save holds it), so there is nothing left to write.
    if persists { context.forget(key.id, reference: ObjectIdentifier(self)) }
  }

  // MARK: - Reading and mutating

  /// The value, read under its lock; the read takes part in Observation.
  ///
  /// NB: inlinable, like ``withLock(_:)``, so a caller that inlines it reads `Mutex<Value>` in
  /// specialized code.
  @inlinable
  var value: Value {
    if !hasBeenRead.load(ordering: .relaxed) { hasBeenRead.store(true, ordering: .relaxed) }
    observation.accessValue(valueKeyPath)
    // NB: one relaxed atomic load when no test store tracks changes (the benchmarked hot path).
    if context.changeTracking.isActive.load(ordering: .relaxed), let snapshot = trackedSnapshot() {
      return snapshot
    }
    return storage.withLock { $0 }
  }

  /// The expected snapshot of a test store's assertion closure running now, if any.
  @usableFromInline
  func trackedSnapshot() -> Value? {
    guard let tracker = SharedChangeTracker.expecting(in: context) else { return nil }
    return tracker.snapshot(of: self)
  }

  /// Why outside changes of the stored data are not seen right now, if they are not.
  var watchError: (any Error)? {
    madePersistence.load()?.withLinks { $0.subscription }?.failure
  }

  /// The value, without taking part in Observation or marking it read.
  func peek() -> Value { storage.withLock { $0 } }

  /// Replaces the value with one read from storage; it is already saved.
  func replaceValue(_ value: Value) {
    observation.willSetValue(valueKeyPath)
    storage.withLock { stored in
      stored = value
      savedGeneration = generation
      if shared?.merges == true { base = value }
    }
    observation.didSetValue(valueKeyPath)
    if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
  }
}

extension SharedReference: SharedChangeTrackable {
  var trackedKeyID: SharedKeyID { key.id }
  var untrackedValue: any Sendable { storage.withLock { $0 } }
}

/// A reference's links outside: its subscription to outside changes of the stored data, and
/// whoever is called after every change (``Shared/values``; see `observeChanges(_:)`).
///
/// Kept under the persistence's lock (see ``PersistenceParts``); nothing is called with it held.
/// NB: not generic, so a reference's creation looks up no metadata for it.
struct ReferenceLinks: Sendable {
  var subscription: StorageSubscription?
  var nextListener = 0
  var listeners: [Int: @Sendable () -> Void] = [:]
}

/// What every reference can do, whatever its value type.
protocol AnySharedReference: AnyObject, Sendable {
  func flush() async throws
  /// Writes what is pending now, on the calling thread, unless a transaction is open (after
  /// waiting until `deadline`, if any, for it to end): for the exit and termination flushes.
  func flushAtExit(waitingForTransactionsUntil deadline: ContinuousClock.Instant?)
}
