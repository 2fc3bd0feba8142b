import Dispatch
import Foundation
import Observation
import Synchronization

/// The one reference behind every ``Shared`` of a key in a context: the value under a lock, its
/// observation, its load and save state, and the background writer of coalesced saves.
@usableFromInline
final class SharedReference<Value: Sendable>: Observable, AnySharedReference {
  let key: any SharedKey<Value>
  @usableFromInline let context: StorageContext
  @usableFromInline let storage: Mutex<Value>
  private let status = Mutex(Status())
  private let registrar = ObservationRegistrar()
  /// Made once: a key path into a generic class is otherwise instantiated on every use.
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  private nonisolated(unsafe) let valueKeyPath: KeyPath<SharedReference, Value> = \.value
  /// Whether the value was ever read (and so may be observed); see ``withLock(_:)``.
  @usableFromInline let hasBeenRead = Atomic<Bool>(false)
  private let saveTiming: SaveTiming
  /// Whether mutations are saved anywhere (everything but in-memory values).
  @usableFromInline let persists: Bool
  /// Counts mutations; a save records the generation it wrote.
  // NB: guarded by the `storage` lock (read and written only inside it), so a mutation of a file
  // key costs no atomic read-modify-write; the lock also orders it with `saveScheduled`.
  @usableFromInline nonisolated(unsafe) var generation: UInt64 = 0
  /// Whether a coalesced save is scheduled on the writer queue.
  private let saveScheduled = Atomic<Bool>(false)
  /// Mirrors `status.loadError != nil`: the stored data is protected from saves.
  private let isProtected = Atomic<Bool>(false)
  /// Saves, reloads and flushes run here, in order, never on a mutating thread.
  private let writer: DispatchQueue
  private let subscription = Mutex<StorageSubscription?>(nil)

  private struct Status {
    var loadError: SharedLoadError?
    var saveError: SharedSaveError?
    /// The generation (see `generation`) the last successful save wrote.
    var savedGeneration: UInt64 = 0
  }

  /// Creates the reference and reads the stored value synchronously, so the first read of a
  /// key sees what is stored.
  init(key: any SharedKey<Value>, context: StorageContext, default makeDefault: () -> Value) {
    self.key = key
    self.context = context
    self.saveTiming = key.saveTiming
    if case .never = key.saveTiming { self.persists = false } else { self.persists = true }
    self.writer = DispatchQueue(label: "keepsake.shared.\(key.id)")
    var initial: Value?
    var loadError: SharedLoadError?
    do {
      initial = try key.load(in: context)
    } catch {
      loadError = SharedReference.loadError(error, key: key)
    }
    self.storage = Mutex(initial ?? makeDefault())
    status.withLock { $0.loadError = loadError }
    isProtected.store(loadError != nil, ordering: .releasing)
    let subscription = key.subscribe(in: context) { [weak self] in
      guard let self else { return }
      writer.async { self.reloadAfterOutsideChange() }
    }
    self.subscription.withLock { $0 = subscription }
    writer.setSpecific(key: Self.writerKey, value: ObjectIdentifier(self))
    if case .coalesced = saveTiming { ExitFlush.watch(context) }
    context.changeTracking.tracker?.register(self)
  }

  deinit {
    subscription.withLock { $0?.cancel() }
  }

  // MARK: - Reading and mutating

  var value: Value {
    if !hasBeenRead.load(ordering: .relaxed) { hasBeenRead.store(true, ordering: .relaxed) }
    registrar.access(self, keyPath: valueKeyPath)
    // NB: one relaxed atomic load when no test store tracks changes (the benchmarked hot path).
    if context.changeTracking.isActive.load(ordering: .relaxed),
      let tracker = SharedChangeTracker.expecting(in: context),
      let snapshot: Value = tracker.snapshot(of: self)
    {
      return snapshot
    }
    return storage.withLock { $0 }
  }

  /// Mutates the value under its lock.
  ///
  /// NB: the fast path (no test store tracking changes, value never read so nothing can be
  /// observing it) is inlinable so it specializes in the caller's module: a mutation of an
  /// in-memory value then costs a lock, the body and two relaxed atomic loads.
  @inlinable
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    guard !context.changeTracking.isActive.load(ordering: .relaxed),
      !hasBeenRead.load(ordering: .relaxed)
    else { return try withLockTrackedOrObserved(body) }
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

  /// The general path of ``withLock(_:)``: a test store's assertion closure, or an observed
  /// value.
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
  }

  @usableFromInline
  func didMutate() {
    switch saveTiming {
    case .never:
      return
    case .immediate:
      if let blocked = protectingError() {
        setSaveError(.protected(blocked))
        return
      }
      performSave()
    case .coalesced(let interval):
      if let blocked = protectingError() {
        setSaveError(.protected(blocked))
        return
      }
      // NB: the writer clears the flag before it takes the storage lock to snapshot, and this
      // mutation bumped the generation under that lock before reading the flag: so either this
      // mutation sees no save scheduled and schedules one, or the scheduled save sees it.
      guard !saveScheduled.load(ordering: .acquiring),
        saveScheduled.compareExchange(
          expected: false, desired: true, ordering: .acquiringAndReleasing
        ).exchanged
      else { return }
      writer.asyncAfter(deadline: .now() + interval.timeInterval) { [self] in
        saveScheduled.store(false, ordering: .releasing)
        performSave()
      }
    }
  }

  /// The load error that protects the stored data, if any; one atomic load when there is none.
  private func protectingError() -> SharedLoadError? {
    guard isProtected.load(ordering: .acquiring) else { return nil }
    return status.withLock { $0.loadError }
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

  private func setLoadError(_ error: SharedLoadError?) {
    registrar.withMutation(of: self, keyPath: \.loadError) {
      status.withLock { $0.loadError = error }
      isProtected.store(error != nil, ordering: .releasing)
    }
  }

  private func setSaveError(_ error: SharedSaveError?) {
    let changed = status.withLock { status in
      let changed = !(status.saveError == nil && error == nil)
      status.saveError = error
      return changed
    }
    if changed {
      registrar.withMutation(of: self, keyPath: \.saveError) {}
    }
  }

  private static func loadError(_ error: any Error, key: any SharedKey<Value>) -> SharedLoadError {
    if let error = error as? SharedLoadError { return error }
    return SharedLoadError(key: key.id, underlying: error)
  }

  // MARK: - Saving

  /// Saves the latest value if it changed since the last save, returning the error it ran into.
  ///
  /// Runs on the writer queue, or on the mutating thread for immediate keys.
  @discardableResult
  private func performSave(force: Bool = false) -> SharedSaveError? {
    let (snapshot, generation) = storage.withLock { ($0, self.generation) }
    // A flush with nothing pending has nothing to report, even for protected data.
    if !force && generation == status.withLock({ $0.savedGeneration }) { return nil }
    if let blocked = status.withLock({ $0.loadError }) {
      let error = SharedSaveError.protected(blocked)
      setSaveError(error)
      return error
    }
    do {
      try key.save(snapshot, in: context)
      status.withLock { $0.savedGeneration = max($0.savedGeneration, generation) }
      setSaveError(nil)
      return nil
    } catch {
      let saveError: SharedSaveError
      if let loadError = error as? SharedLoadError {
        // The key found, at save time, stored data it cannot read: protect it from now on.
        setLoadError(loadError)
        saveError = .protected(loadError)
      } else {
        saveError = .writeFailed(key: key.id, underlying: error)
      }
      setSaveError(saveError)
      return saveError
    }
  }

  func save() async throws {
    let error: SharedSaveError? = await onWriter { self.performSave(force: true) }
    if let error { throw error }
  }

  func flush() async {
    _ = await onWriter { self.performSave() }
  }

  /// Writes a pending change now, blocking the calling thread until it is written.
  func flushSynchronously() {
    if DispatchQueue.getSpecific(key: Self.writerKey) == ObjectIdentifier(self) {
      _ = performSave()
    } else {
      writer.sync { _ = performSave() }
    }
  }

  /// Marks the writer queue, so a synchronous flush from the queue itself does not deadlock.
  private static var writerKey: DispatchSpecificKey<ObjectIdentifier> { WriterKey.key }

  func flushAndReport() async throws {
    let error: SharedSaveError? = await onWriter { self.performSave() }
    if let error { throw error }
  }

  private func onWriter<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      writer.async { continuation.resume(returning: work()) }
    }
  }

  // MARK: - Loading

  func load() async throws {
    let error: SharedLoadError? = await onWriter {
      do {
        if let value = try self.key.load(in: self.context) { self.replaceValue(value) }
        self.setLoadError(nil)
        self.setSaveError(nil)
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

  private func reloadAfterOutsideChange() {
    // A pending change made here is newer than what is stored; it is saved next.
    let generation = storage.withLock { _ in self.generation }
    let pending = status.withLock { generation != $0.savedGeneration && $0.loadError == nil }
    if pending { return }
    do {
      switch try key.reload(in: context) {
      case .unchanged, .missing:
        return
      case .value(let value):
        replaceValue(value)
        if status.withLock({ $0.loadError }) != nil {
          setLoadError(nil)
          setSaveError(nil)
        }
      }
    } catch {
      setLoadError(SharedReference.loadError(error, key: key))
    }
  }

  /// Replaces the value with one read from storage; it is already saved.
  private func replaceValue(_ value: Value) {
    registrar.willSet(self, keyPath: valueKeyPath)
    let generation = storage.withLock { stored in
      stored = value
      return self.generation
    }
    registrar.didSet(self, keyPath: valueKeyPath)
    status.withLock { $0.savedGeneration = generation }
  }
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

/// The dispatch-specific key that marks a reference's writer queue.
private enum WriterKey {
  #if canImport(Darwin)
    // NB: an immutable token compared by identity; not marked Sendable in every Dispatch.
    nonisolated(unsafe) static let key = DispatchSpecificKey<ObjectIdentifier>()
  #else
    static let key = DispatchSpecificKey<ObjectIdentifier>()
  #endif
}
