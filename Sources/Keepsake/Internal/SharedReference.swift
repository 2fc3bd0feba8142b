import Dispatch
import Foundation
import Observation
import Synchronization

/// The one reference behind every ``Shared`` of a key in a context: the value under a lock, its
/// observation, and its load and save state.
///
/// Saving lives in `SharedReference+Saving.swift`, and the cross-process protocol of file keys
/// (lock, compare, merge or keep both, write) in `SharedReference+Commit.swift`.
@usableFromInline
final class SharedReference<Value: Sendable>: Observable, AnySharedReference {
  let key: any SharedKey<Value>
  /// The key as a file whose other writers must be coordinated with, if it is one.
  let coordinated: (any CoordinatedKey<Value>)?
  @usableFromInline let context: StorageContext
  @usableFromInline let storage: Mutex<Value>
  let status = Mutex(Status())
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

  struct Status {
    var loadError: SharedLoadError?
    var saveError: SharedSaveError?
    /// The generation (see `generation`) the last successful save wrote.
    var savedGeneration: UInt64 = 0
    /// The last time another process's change met a change of ours.
    var lastConflict: SharedConflict?
    /// Whether the first load is still to come (keys that load in the background).
    var isLoading = false
  }

  /// The reference behind a projection: it stores nothing and watches nothing itself.
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

  /// Mutates the value under its lock.
  ///
  /// NB: inlinable, so the lock and the body specialize in the caller's module (generic code
  /// of `Mutex<Value>` costs several times the lock itself). Two paths, neither of which takes
  /// a test store's tracker into account (that is ``withLockTrackedOrObserved(_:)``):
  /// - never read, so nothing can be observing it (Observation only tracks a value that was
  ///   read): a lock, the body and two relaxed atomic loads;
  /// - read, so maybe observed: the registrar's `willSet` before and `didSet` after, as
  ///   `@Observable` does, then the save and the change listeners, through one call
  ///   (``notifyingObservers(_:_:)``).
  @inlinable
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    if let projection { return try projection.withLock(body) }
    guard !context.changeTracking.isActive.load(ordering: .relaxed) else {
      return try withLockTrackedOrObserved(body)
    }
    if hasBeenRead.load(ordering: .relaxed) {
      return try notifyingObservers(self) {
        try storage.withLock { value in
          defer { if persists { generation &+= 1 } }
          return try body(&value)
        }
      }
    }
    var readMeanwhile = false
    defer {
      // A read that raced this mutation stored the flag before taking the lock, so it is seen
      // here, and observers are told after the fact.
      if readMeanwhile { notifyObserversAfterTheFact() }
      if persists { didMutate() }
    }
    return try storage.withLock { value in
      defer {
        readMeanwhile = hasBeenRead.load(ordering: .relaxed)
        if persists { generation &+= 1 }
      }
      return try body(&value)
    }
  }

  /// Runs `mutation` between the registrar's `willSet` and `didSet` of the value, as
  /// `withMutation` does, then schedules the save and tells the change listeners, as
  /// ``withLockTrackedOrObserved(_:)`` does.
  ///
  /// NB: one call out of the caller's specialized code for everything after the lock;
  /// `subject` is this reference, passed so the caller hands over its metadata (see
  /// ``registerAccess(_:)``).
  @usableFromInline
  func notifyingObservers<Subject: Observable, R>(
    _ subject: Subject, _ mutation: () throws -> R
  ) rethrows -> R {
    defer {
      if persists { didMutate() }
      if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
    }
    return try withKeyPath(of: subject) { keyPath in
      registrar.willSet(subject, keyPath: keyPath)
      defer { registrar.didSet(subject, keyPath: keyPath) }
      return try mutation()
    }
  }

  /// The general path of ``withLock(_:)``, taken while a test store tracks changes: inside its
  /// assertion closure the expected snapshot changes, elsewhere the live value, observed or not.
  @usableFromInline
  func withLockTrackedOrObserved<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    // Inside a test's assertion closure the expected value (a snapshot) changes, never the
    // live one.
    if context.changeTracking.isActive.load(ordering: .relaxed),
      let tracker = SharedChangeTracker.expecting(in: context),
      let result = try tracker.mutateSnapshot(of: self, body)
    {
      return result
    }
    // NB: Observation only tracks a value that was read, so until the first read mutations
    // skip the registrar (see the fast path above).
    let notify = hasBeenRead.load(ordering: .relaxed)
    if notify { registrar.willSet(self, keyPath: valueKeyPath) }
    var readMeanwhile = false
    defer {
      if readMeanwhile { registrar.willSet(self, keyPath: valueKeyPath) }
      if notify || readMeanwhile { registrar.didSet(self, keyPath: valueKeyPath) }
      didMutate()
      if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
    }
    return try storage.withLock { value in
      defer {
        readMeanwhile = !notify && hasBeenRead.load(ordering: .relaxed)
        if persists { generation &+= 1 }
      }
      return try body(&value)
    }
  }

  @usableFromInline
  func notifyObserversAfterTheFact() {
    registrar.willSet(self, keyPath: valueKeyPath)
    registrar.didSet(self, keyPath: valueKeyPath)
    if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
  }

  /// Calls `onChange` after every change of the value, on the thread that made it.
  ///
  /// NB: marks the value read, so mutations take the observed path, which tells listeners.
  func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> StorageSubscription {
    hasBeenRead.store(true, ordering: .relaxed)
    let id = changeListeners.withLock { listeners in
      defer { listeners.next += 1 }
      listeners.all[listeners.next] = onChange
      hasChangeListeners.store(true, ordering: .relaxed)
      return listeners.next
    }
    return StorageSubscription { [weak self] in
      self?.changeListeners.withLock { listeners in
        listeners.all[id] = nil
        if listeners.all.isEmpty { self?.hasChangeListeners.store(false, ordering: .relaxed) }
      }
    }
  }

  @usableFromInline
  func tellChangeListeners() {
    let listeners = changeListeners.withLock { Array($0.all.values) }
    for listener in listeners { listener() }
  }

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

  // MARK: - Errors

  var loadError: SharedLoadError? {
    registrar.access(self, keyPath: \.loadError)
    return status.withLock { $0.loadError }
  }

  var saveError: SharedSaveError? {
    registrar.access(self, keyPath: \.saveError)
    return status.withLock { $0.saveError }
  }

  var lastConflict: SharedConflict? {
    registrar.access(self, keyPath: \.lastConflict)
    return status.withLock { $0.lastConflict }
  }

  var isLoading: Bool {
    registrar.access(self, keyPath: \.isLoading)
    return status.withLock { $0.isLoading }
  }

  /// Ends the loading state once the first load has come (or failed).
  func finishLoading() {
    guard status.withLock({ $0.isLoading }) else { return }
    registrar.withMutation(of: self, keyPath: \.isLoading) {
      status.withLock { $0.isLoading = false }
    }
  }

  /// Why outside changes of the stored data are not seen right now, if they are not.
  var watchError: (any Error)? { subscription.withLock { $0?.failure } }

  /// The load error that protects the stored data, if any; one atomic load when there is none.
  func protectingError() -> SharedLoadError? {
    guard isProtected.load(ordering: .acquiring) else { return nil }
    return status.withLock { $0.loadError }
  }

  func setLoadError(_ error: SharedLoadError?) {
    registrar.withMutation(of: self, keyPath: \.loadError) {
      status.withLock { $0.loadError = error }
      isProtected.store(error != nil, ordering: .releasing)
    }
  }

  func setSaveError(_ error: SharedSaveError?) {
    let changed = status.withLock { status in
      let changed = !(status.saveError == nil && error == nil)
      status.saveError = error
      return changed
    }
    if changed {
      registrar.withMutation(of: self, keyPath: \.saveError) {}
    }
  }

  func report(_ conflict: SharedConflict) {
    registrar.withMutation(of: self, keyPath: \.lastConflict) {
      status.withLock { $0.lastConflict = conflict }
    }
  }

  static func loadError(_ error: any Error, key: any SharedKey<Value>) -> SharedLoadError {
    if let error = error as? SharedLoadError { return error }
    return SharedLoadError(key: key.id, underlying: error)
  }

  // MARK: - Loading

  func load() async throws {
    let error: SharedLoadError? = await onWriter {
      do {
        if let value = try self.key.load(in: self.context) { self.replaceValue(value) }
        self.setLoadError(nil)
        return nil
      } catch {
        let loadError = SharedReference.loadError(error, key: self.key)
        self.setLoadError(loadError)
        return loadError
      }
    }
    if let error { throw error }
  }

  /// Moves unreadable stored data aside and saves the value in memory in its place.
  func replaceUnreadableData() async throws -> URL? {
    let result: Result<URL?, any Error> = await onWriter {
      do {
        let quarantined = try self.key.quarantineUnreadable(in: self.context)
        self.setLoadError(nil)
        if let error = self.performSave(force: true) { return .failure(error) }
        return .success(quarantined)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  // MARK: - The writer queue

  func onWriter<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    // NB: the block must not keep `work` alive once the caller resumes: `update` passes a
    // closure that only pretends to escape (`withoutActuallyEscaping`), and the runtime traps
    // if it is still referenced when that scope ends. libdispatch releases a block only after
    // it returns, so the closure is taken out of a box, called and dropped before resuming.
    let box = Mutex<(@Sendable () -> T)?>(work)
    return await withCheckedContinuation { continuation in
      writer.async {
        let value: T
        do {
          guard let work = box.withLock({ $0.take() }) else {
            preconditionFailure("a writer job ran twice")
          }
          value = work()
        }
        continuation.resume(returning: value)
      }
    }
  }

  /// Marks the writer queue, so a synchronous flush from the queue itself does not deadlock.
  static var writerKey: DispatchSpecificKey<ObjectIdentifier> { WriterKey.key }
}

extension SharedReference: SharedChangeTrackable {
  var trackedKeyID: SharedKeyID { key.id }
  var untrackedValue: any Sendable { storage.withLock { $0 } }
}

/// What every reference can do, whatever its value type.
protocol AnySharedReference: AnyObject, Sendable {
  func flush() async
  func flushSynchronously()
  func flushAndReport() async throws
}

extension Duration {
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}

/// The queue of every projection's reference, which never uses it: a projection's work is done
/// by its parent's reference.
private let projectionWriter = DispatchQueue(label: "keepsake.projection")

/// The key of a projection's reference: its parent's key stores the value.
struct ProjectionKey<Value: Sendable>: SharedKey {
  var id: SharedKeyID { SharedKeyID(kind: "projection", name: "") }
  var saveTiming: SaveTiming { .never }
  func load(in context: StorageContext) throws -> Value? { nil }
  func save(_ value: Value, in context: StorageContext) throws {}
}

/// The dispatch-specific key that marks a reference's writer queue.
private enum WriterKey {
  #if canImport(Darwin)
    // NB: an immutable token compared by identity; not marked Sendable in every Dispatch.
    nonisolated(unsafe) static let key = DispatchSpecificKey<ObjectIdentifier>()
  #else
    static let key = DispatchSpecificKey<ObjectIdentifier>()
  #endif
}
