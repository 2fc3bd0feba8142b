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
/// Locks, in the only order they are ever nested: the value's lock (`storage`, which also
/// guards `generation`, `savedGeneration` and `base`) is never held while the machine's lock is
/// taken, nor the reverse; nothing calls out (to the key, the registrar or a waiter) with either
/// held, except a merge, which runs under the value's lock. The inline-save lock of keys that
/// save on the mutating thread is taken before the value's lock.
@usableFromInline
final class SharedReference<Value: Sendable>: Observable, AnySharedReference {
  let key: any SharedKey<Value>
  /// The key as a file whose other writers must be coordinated with, if it is one.
  let coordinated: (any CoordinatedKey<Value>)?
  @usableFromInline let context: StorageContext
  @usableFromInline let storage: Mutex<Value>
  @usableFromInline let registrar = ObservationRegistrar()
  /// Made once: a key path into a generic class is otherwise instantiated on every use.
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  @usableFromInline nonisolated(unsafe) let valueKeyPath: KeyPath<SharedReference, Value>
  /// The key paths of the status, made once per value type (see `ReferenceKeyPaths`).
  nonisolated(unsafe) let keyPaths: ReferenceKeyPaths<Value>
  /// Whether the value was ever read (and so may be observed); see ``withLock(_:)``.
  @usableFromInline let hasBeenRead = Atomic<Bool>(false)
  /// Whether mutations are saved anywhere (everything but in-memory values).
  @usableFromInline let persists: Bool
  /// The default: the value when nothing is stored, and again when the stored data is deleted.
  let fallback: Value
  /// Counts mutations; a save records the generation it wrote in `savedGeneration`.
  // NB: guarded by the `storage` lock (read and written only inside it), so a mutation of a file
  // key costs no atomic read-modify-write.
  @usableFromInline nonisolated(unsafe) var generation: UInt64 = 0
  /// The generation last written or read: the value has a pending change when it differs.
  // NB: guarded by the `storage` lock, like `generation`.
  nonisolated(unsafe) var savedGeneration: UInt64 = 0
  /// What this reference last read or wrote, the base of a three-way merge; kept only for keys
  /// that merge.
  // NB: guarded by the `storage` lock, like `generation`.
  nonisolated(unsafe) var base: Value?
  /// Every decision of the persistence (see `PersistenceMachine`), under its own lock.
  let machine: Mutex<PersistenceMachine>
  /// Whether a save that will see the next mutation is already armed (or a transaction is open,
  /// whose end writes): mutations then skip telling the machine.
  @usableFromInline let saveIsArmed = Atomic<Bool>(false)
  /// Saves, reloads and flushes run here, in order, never on a mutating thread.
  let lane: any PersistenceLane
  /// What the running job carries between its steps, made by its first job.
  // NB: touched only on `lane`, which runs one thing at a time; made lazily, so a key that never
  // runs a job (most in-memory values) never allocates it.
  private nonisolated(unsafe) var madeWork: PersistenceWork<Value>?

  /// What the running job carries between its steps; use only on `lane`.
  var work: PersistenceWork<Value> {
    if let madeWork { return madeWork }
    let work = PersistenceWork<Value>()
    madeWork = work
    return work
  }
  /// Serializes saves made on the mutating thread, so the latest value is the one stored.
  let inlineSaves = Mutex<UInt64>(0)
  /// The bodies of `update`s waiting for their jobs, by token.
  let updates = Mutex<(next: UInt64, bodies: [UInt64: UpdateBody<Value>])>((0, [:]))
  private let subscription = Mutex<StorageSubscription?>(nil)
  /// Called after every change (``Shared/values``); see ``observeChanges(_:)``.
  let changeListeners = Mutex<(next: Int, all: [Int: @Sendable () -> Void])>((0, [:]))
  /// Whether anything listens, so a change without listeners costs one relaxed load.
  @usableFromInline let hasChangeListeners = Atomic<Bool>(false)
  /// Creates the reference and reads the stored value synchronously, so the first read of a
  /// key sees what is stored.
  init(key: any SharedKey<Value>, context: StorageContext, default makeDefault: () -> Value) {
    // NB: a concrete cast: a cast to `any CoordinatedKey<Value>` (a parameterized protocol) was
    // most of an in-memory key's creation (measured); file keys are the coordinated ones.
    let file = (key as? FileStorageKey<Value>)?.withOwnState()
    let coordinated: (any CoordinatedKey<Value>)? = file
    let key: any SharedKey<Value> = file ?? key
    let keyPaths = ReferenceKeyPaths<Value>.shared
    self.keyPaths = keyPaths
    self.valueKeyPath = keyPaths.value
    self.key = key
    self.coordinated = coordinated
    self.context = context
    if case .never = key.saveTiming { self.persists = false } else { self.persists = true }
    self.lane = context.scheduler.makeLane(for: key.id)
    var initial: Value?
    var loadError: SharedLoadError?
    // NB: concrete checks first: a protocol cast costs more than the rest of an in-memory key.
    let loadsLater: Bool
    if let file {
      loadsLater = file.loadsInBackground
    } else if key is InMemoryKey<Value> {
      loadsLater = false
    } else {
      loadsLater = (key as? any BackgroundLoadingKey)?.loadsInBackground ?? false
    }
    do {
      // NB: a key that loads in the background starts from its default; the load arrives
      // through the outside-change path, which merges with any change made meanwhile.
      if !loadsLater { initial = try key.load(in: context) }
    } catch {
      loadError = SharedReference.loadError(error, key: key)
    }
    let fallback = makeDefault()
    self.fallback = fallback
    self.storage = Mutex(initial ?? fallback)
    if coordinated?.merge != nil { base = initial ?? fallback }
    self.machine = Mutex(
      PersistenceMachine(
        kind: PersistenceMachine.kind(of: key, coordinated: coordinated),
        interval: key.saveTiming.interval, lockTimeout: FileLock.defaultTimeout,
        loadError: loadError, isLoading: loadsLater, flaws: context.scheduler.flaws))
    // Devices: a sync engine's copies, merged by the key (`Sync/`), are reported to the machine
    // like another process's save.
    file?.reportSyncConflicts(fallback: fallback) { [weak self] conflict in
      self?.send(.conflictReported(conflict.resolution, otherDevice: conflict.otherDevice))
    }
    let subscription = key.subscribe(in: context) { [weak self] in
      self?.outsideChange()
    }
    self.subscription.withLock { $0 = subscription }
    // NB: a file read in the background is read as an outside change; a reader key's first load
    // arrives through its subscription.
    if loadsLater && coordinated != nil { outsideChange() }
    if persists { ExitFlush.watch(context) }
  }

  deinit {
    subscription.withLock { $0?.cancel() }
    // NB: a reference that persists dies only once no Shared holds it and no save is pending
    // (a scheduled save holds it), so there is nothing left to write.
    if persists { context.forget(key.id, reference: ObjectIdentifier(self)) }
  }

  // MARK: - Reading and mutating

  /// The value, read under its lock; the read takes part in Observation.
  ///
  /// NB: inlinable, like ``withLock(_:)``, so a caller that inlines it reads `Mutex<Value>` in
  /// specialized code; the registrar is reached through ``registerAccess(_:)``.
  @inlinable
  var value: Value {
    if !hasBeenRead.load(ordering: .relaxed) { hasBeenRead.store(true, ordering: .relaxed) }
    registerAccess(self)
    // NB: one relaxed atomic load when no test store tracks changes (the benchmarked hot path).
    if context.changeTracking.isActive.load(ordering: .relaxed), let snapshot = trackedSnapshot() {
      return snapshot
    }
    return storage.withLock { $0 }
  }

  /// Tells the registrar the value was read, for the tracking (if any) around the read.
  ///
  /// NB: `subject` is always this reference (every caller passes `self`). Taking it as a generic
  /// parameter lets a caller's specialized code hand over the class's metadata and its
  /// `Observable` conformance, which this unspecialized code would otherwise look up at run time
  /// on every call (measured: ~25 ns, more than the registrar's own work).
  @inlinable
  func registerAccess<Subject: Observable>(_ subject: Subject) {
    withKeyPath(of: subject) { registrar.access(subject, keyPath: $0) }
  }

  /// Calls `body` with the value's key path, typed for `subject`, which is this reference (see
  /// ``registerAccess(_:)``).
  @inlinable @inline(__always)
  func withKeyPath<Subject: Observable, R>(
    of subject: Subject, _ body: (KeyPath<Subject, Value>) throws -> R
  ) rethrows -> R {
    assert(subject as AnyObject === self, "the subject of a reference's value is the reference")
    // NB: the same object, of the same type: only its static type is restated. Borrowed, not
    // retained: the reference keeps its key path alive (a retain and release per call showed in
    // the profile of reads).
    return try Unmanaged.passUnretained(valueKeyPath)._withUnsafeGuaranteedRef { keyPath in
      try body(unsafeBitCast(keyPath, to: KeyPath<Subject, Value>.self))
    }
  }

  /// The expected snapshot of a test store's assertion closure running now, if any.
  @usableFromInline
  func trackedSnapshot() -> Value? {
    guard let tracker = SharedChangeTracker.expecting(in: context) else { return nil }
    return tracker.snapshot(of: self)
  }

  /// Why outside changes of the stored data are not seen right now, if they are not.
  var watchError: (any Error)? { subscription.withLock { $0?.failure } }

  /// The value, without taking part in Observation or marking it read.
  func peek() -> Value { storage.withLock { $0 } }

  /// Replaces the value with one read from storage; it is already saved.
  func replaceValue(_ value: Value) {
    registrar.willSet(self, keyPath: valueKeyPath)
    storage.withLock { stored in
      stored = value
      savedGeneration = generation
      if coordinated?.merge != nil { base = value }
    }
    registrar.didSet(self, keyPath: valueKeyPath)
    if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
  }
}

extension SharedReference: SharedChangeTrackable {
  var trackedKeyID: SharedKeyID { key.id }
  var untrackedValue: any Sendable { storage.withLock { $0 } }
}

/// What every reference can do, whatever its value type.
protocol AnySharedReference: AnyObject, Sendable {
  func flush() async throws
  /// Writes what is pending now, on the calling thread, unless a transaction is open (after
  /// waiting until `deadline`, if any, for it to end): for the exit and termination flushes.
  func flushAtExit(waitingForTransactionsUntil deadline: ContinuousClock.Instant?)
}
