import Dispatch
import Foundation
import Observation
import Synchronization

/// The one reference behind every ``Shared`` of a key in a context: the value under a lock and
/// its observation.
///
/// Its other capabilities live beside it: mutation (`SharedReference+Mutation.swift`), load and
/// save status (`SharedReference+Status.swift`), and under `Persistence/` loading, the writer
/// queue, saving with its coalescer, and the cross-process protocol of file keys
/// (`SharedReference+Loading.swift`, `+Writer.swift`, `+Saving.swift`, `+Commit.swift`,
/// `+Transaction.swift`).
@usableFromInline
final class SharedReference<Value: Sendable>: Observable, AnySharedReference {
  let key: any SharedKey<Value>
  /// The key as a file whose other writers must be coordinated with, if it is one.
  let coordinated: (any CoordinatedKey<Value>)?
  @usableFromInline let context: StorageContext
  @usableFromInline let storage: Mutex<Value>
  let status = Mutex(SharedStatus())
  @usableFromInline let registrar = ObservationRegistrar()
  /// Made once: a key path into a generic class is otherwise instantiated on every use.
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  @usableFromInline nonisolated(unsafe) let valueKeyPath: KeyPath<SharedReference, Value> = \.value
  /// Whether the value was ever read (and so may be observed); see ``withLock(_:)``.
  @usableFromInline let hasBeenRead = Atomic<Bool>(false)
  let saveTiming: SaveTiming
  /// Whether mutations are saved anywhere (everything but in-memory values).
  @usableFromInline let persists: Bool
  /// The default: the value when nothing is stored, and again when the stored data is deleted.
  let fallback: Value
  /// What this reference last read or wrote, the base of a three-way merge; kept only for keys
  /// that merge.
  let base = Mutex<Value?>(nil)
  /// Counts mutations; a save records the generation it wrote.
  // NB: guarded by the `storage` lock (read and written only inside it), so a mutation of a file
  // key costs no atomic read-modify-write; the lock also orders it with `saveScheduled`.
  @usableFromInline nonisolated(unsafe) var generation: UInt64 = 0
  /// Whether a coalesced save (or, for preferences, a durable write) is scheduled on the writer.
  let saveScheduled = Atomic<Bool>(false)
  /// Mirrors `status.loadError != nil`: the stored data is protected from saves.
  let isProtected = Atomic<Bool>(false)
  /// Saves, reloads and flushes run here, in order, never on a mutating thread.
  let writer: DispatchQueue
  private let subscription = Mutex<StorageSubscription?>(nil)
  /// The cross-process lock a transaction holds; saves on the writer use it instead of taking
  /// the lock again (they would wait for themselves).
  let heldLock = Mutex<FileLock?>(nil)
  /// Lets one transaction of this reference run at a time in this process.
  let transactions = AsyncGate()
  /// Called after every change (``Shared/values``); see ``observeChanges(_:)``.
  let changeListeners = Mutex<(next: Int, all: [Int: @Sendable () -> Void])>((0, [:]))
  /// Whether anything listens, so a change without listeners costs one relaxed load.
  @usableFromInline let hasChangeListeners = Atomic<Bool>(false)
  /// The part of another value this reference stands for, if it is a projection's.
  ///
  /// For `$parent.member`, reads and changes go to the projection, everything else to the
  /// parent's key; `nil` for a key's own reference.
  ///
  /// NB: a field of the reference rather than a second kind of `Shared`, so a key's reference
  /// is reached on the hot path with no enum to unpack (measured: unpacking retained and
  /// released the reference on every call, 5× a mutation's cost).
  @usableFromInline let projection: SharedProjection<Value>?

  /// The reference behind a projection: it stores nothing and watches nothing itself.
  @usableFromInline
  init(projecting projection: SharedProjection<Value>) {
    let current = projection.peek()
    self.projection = projection
    self.key = ProjectionKey<Value>()
    self.coordinated = nil
    self.context = projection.root.context
    self.saveTiming = .never
    self.persists = false
    self.fallback = current
    self.storage = Mutex(current)
    self.writer = projectionWriter
  }

  /// Creates the reference and reads the stored value synchronously, so the first read of a
  /// key sees what is stored.
  init(key: any SharedKey<Value>, context: StorageContext, default makeDefault: () -> Value) {
    self.projection = nil
    let coordinated = (key as? any CoordinatedKey<Value>)?.withOwnState()
    let key = coordinated ?? key
    self.key = key
    self.coordinated = coordinated
    self.context = context
    self.saveTiming = key.saveTiming
    if case .never = key.saveTiming { self.persists = false } else { self.persists = true }
    self.writer = DispatchQueue(label: "keepsake.shared.\(key.id)")
    var initial: Value?
    var loadError: SharedLoadError?
    let loadsLater = (key as? any BackgroundLoadingKey)?.loadsInBackground ?? false
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
    if coordinated?.merge != nil { base.withLock { $0 = initial ?? fallback } }
    status.withLock {
      $0.loadError = loadError
      $0.isLoading = loadsLater
    }
    isProtected.store(loadError != nil, ordering: .releasing)
    writer.setSpecific(key: Self.writerKey, value: ObjectIdentifier(self))
    // Devices: a sync engine's copies, merged by the key, are reported like another process's
    // save (Sync/; for the lead: an event of the state machine).
    (key as? any SyncReportingKey<Value>)?.reportSyncConflicts(fallback: fallback) {
      [weak self] in self?.report($0)
    }
    let subscription = key.subscribe(in: context) { [weak self] in
      guard let self else { return }
      writer.async { self.reloadAfterOutsideChange() }
    }
    self.subscription.withLock { $0 = subscription }
    if loadsLater && coordinated != nil {
      writer.async { [self] in reloadAfterOutsideChange() }
    }
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
    if let projection { return projection.value }
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
  func peek() -> Value { projection?.peek() ?? storage.withLock { $0 } }

  /// Replaces the value with one read from storage; it is already saved.
  func replaceValue(_ value: Value) {
    registrar.willSet(self, keyPath: valueKeyPath)
    let generation = storage.withLock { stored in
      stored = value
      return self.generation
    }
    registrar.didSet(self, keyPath: valueKeyPath)
    status.withLock { $0.savedGeneration = generation }
    if coordinated?.merge != nil { base.withLock { $0 = value } }
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
  func flushSynchronously()
}
