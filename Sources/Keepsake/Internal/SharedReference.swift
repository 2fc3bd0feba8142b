import Dispatch
import Foundation
import Observation
import Synchronization

/// The one reference behind every ``Shared`` of a key in a context: the value under a lock, its
/// observation, its load and save state, and the background writer of coalesced saves.
final class SharedReference<Value: Sendable>: Observable, AnySharedReference {
  let key: any SharedKey<Value>
  let context: StorageContext
  private let storage: Mutex<Value>
  private let status = Mutex(Status())
  private let registrar = ObservationRegistrar()
  /// Made once: a key path into a generic class is otherwise instantiated on every use.
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  private nonisolated(unsafe) let valueKeyPath: KeyPath<SharedReference, Value> = \.value
  /// Whether the value was ever read (and so may be observed); see ``withLock(_:)``.
  private let hasBeenRead = Atomic<Bool>(false)
  private let saveTiming: SaveTiming
  /// Saves, reloads and flushes run here, in order, never on a mutating thread.
  private let writer: DispatchQueue
  private let subscription = Mutex<StorageSubscription?>(nil)

  private struct Status {
    var loadError: SharedLoadError?
    var saveError: SharedSaveError?
    /// Counts mutations; a save records the generation it wrote.
    var generation: UInt64 = 0
    var savedGeneration: UInt64 = 0
    var saveScheduled = false
  }

  /// Creates the reference and reads the stored value synchronously, so the first read of a
  /// key sees what is stored.
  init(key: any SharedKey<Value>, context: StorageContext, default makeDefault: () -> Value) {
    self.key = key
    self.context = context
    self.saveTiming = key.saveTiming
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
    let subscription = key.subscribe(in: context) { [weak self] in
      guard let self else { return }
      writer.async { self.reloadAfterOutsideChange() }
    }
    self.subscription.withLock { $0 = subscription }
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

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    // Inside a test's assertion closure the expected value (a snapshot) changes, never the
    // live one.
    if context.changeTracking.isActive.load(ordering: .relaxed),
      let tracker = SharedChangeTracker.expecting(in: context),
      let result = try tracker.mutateSnapshot(of: self, body)
    {
      return result
    }
    // NB: Observation only tracks a value that was read, so until the first read mutations
    // skip the registrar, whose willSet/didSet cost microseconds each on Linux. The flag is
    // read again under the lock: a read that raced this mutation stored it before taking the
    // lock, so it is seen here and notified after the fact.
    let notify = hasBeenRead.load(ordering: .relaxed)
    if notify { registrar.willSet(self, keyPath: valueKeyPath) }
    var readMeanwhile = false
    defer {
      if readMeanwhile { registrar.willSet(self, keyPath: valueKeyPath) }
      if notify || readMeanwhile { registrar.didSet(self, keyPath: valueKeyPath) }
      didMutate()
    }
    return try storage.withLock { value in
      defer { readMeanwhile = !notify && hasBeenRead.load(ordering: .relaxed) }
      return try body(&value)
    }
  }

  private func didMutate() {
    switch saveTiming {
    case .never:
      return
    case .immediate:
      let blocked = status.withLock { status -> SharedLoadError? in
        status.generation &+= 1
        return status.loadError
      }
      if let blocked {
        setSaveError(.protected(blocked))
        return
      }
      performSave()
    case .coalesced(let interval):
      let (schedule, blocked) = status.withLock { status -> (Bool, SharedLoadError?) in
        status.generation &+= 1
        if status.loadError != nil || status.saveScheduled { return (false, status.loadError) }
        status.saveScheduled = true
        return (true, nil)
      }
      if let blocked {
        setSaveError(.protected(blocked))
      } else if schedule {
        writer.asyncAfter(deadline: .now() + interval.timeInterval) { [self] in
          status.withLock { $0.saveScheduled = false }
          performSave()
        }
      }
    }
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
    let (generation, blocked) = status.withLock { ($0.generation, $0.loadError) }
    if let blocked {
      let error = SharedSaveError.protected(blocked)
      setSaveError(error)
      return error
    }
    if !force && generation == status.withLock({ $0.savedGeneration }) { return nil }
    let snapshot = storage.withLock { $0 }
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
    let pending = status.withLock { $0.generation != $0.savedGeneration && $0.loadError == nil }
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
    storage.withLock { $0 = value }
    registrar.didSet(self, keyPath: valueKeyPath)
    status.withLock { $0.savedGeneration = $0.generation }
  }
}

extension SharedReference: SharedChangeTrackable {
  var trackedKeyID: SharedKeyID { key.id }
  var untrackedValue: any Sendable { storage.withLock { $0 } }
}

/// What every reference can do, whatever its value type.
protocol AnySharedReference: AnyObject, Sendable {
  func flush() async
  func flushAndReport() async throws
}

extension Duration {
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
