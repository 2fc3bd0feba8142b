import Dispatch
import Foundation

/// A key whose writes are queued and must be made durable by a separate step: preferences,
/// whose store writes in the background (DESIGN.md, rule 5: an acknowledged save is on disk).
protocol DurableKey: Sendable {
  /// Writes what the key queued durably, and reports the error of a write that failed.
  func synchronize(in context: StorageContext) throws
}

extension SharedReference {
  /// Schedules the save a mutation calls for, by the key's timing.
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
      if key is any DurableKey { scheduleOnWriter(after: nil) }
    case .coalesced(let interval):
      if let blocked = protectingError() {
        setSaveError(.protected(blocked))
        return
      }
      scheduleOnWriter(after: interval)
    }
  }

  /// Schedules one background save, unless one is already scheduled.
  private func scheduleOnWriter(after interval: Duration?) {
    // NB: the writer clears the flag before it takes the storage lock to snapshot, and this
    // mutation bumped the generation under that lock before reading the flag: so either this
    // mutation sees no save scheduled and schedules one, or the scheduled save sees it.
    guard !saveScheduled.load(ordering: .acquiring),
      saveScheduled.compareExchange(
        expected: false, desired: true, ordering: .acquiringAndReleasing
      ).exchanged
    else { return }
    let work: @Sendable () -> Void = { [self] in
      saveScheduled.store(false, ordering: .releasing)
      if interval == nil {
        _ = synchronize()
      } else {
        performSave()
      }
    }
    if let interval {
      writer.asyncAfter(deadline: .now() + interval.timeInterval, execute: work)
    } else {
      writer.async(execute: work)
    }
  }

  /// Whether the value changed since it was last saved (or read).
  func hasPendingChange() -> Bool {
    let generation = storage.withLock { _ in self.generation }
    return status.withLock { generation != $0.savedGeneration }
  }

  /// Saves the latest value if it changed since the last save, returning the error it ran into.
  ///
  /// Runs on the writer queue, or on the mutating thread for immediate keys.
  @discardableResult
  func performSave(force: Bool = false) -> SharedSaveError? {
    if let coordinated {
      do {
        try commit(coordinated, force: force)
        return nil
      } catch let error as SharedSaveError {
        return error
      } catch {
        // NB: a commit without a body throws only save errors; wrap anything else honestly.
        let wrapped = SharedSaveError.writeFailed(key: key.id, underlying: error)
        setSaveError(wrapped)
        return wrapped
      }
    }
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
      // NB: a preferences write is only acknowledged once `synchronize` made it durable.
      if !(key is any DurableKey) { setSaveError(nil) }
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

  /// Makes a queued preferences write durable; a no-op for other keys.
  @discardableResult
  func synchronize() -> SharedSaveError? {
    guard let durable = key as? any DurableKey else { return nil }
    do {
      try durable.synchronize(in: context)
      setSaveError(nil)
      return nil
    } catch {
      let saveError = SharedSaveError.writeFailed(key: key.id, underlying: error)
      setSaveError(saveError)
      return saveError
    }
  }

  /// Saves now and makes the write durable, returning the first error.
  private func saveDurably(force: Bool) -> SharedSaveError? {
    let error = performSave(force: force)
    let durable = synchronize()
    return error ?? durable
  }

  func save() async throws {
    let error: SharedSaveError? = await onWriter { self.saveDurably(force: true) }
    if let error { throw error }
  }

  func flush() async {
    _ = await onWriter { self.saveDurably(force: false) }
  }

  /// Writes a pending change now, blocking the calling thread until it is written.
  func flushSynchronously() {
    if DispatchQueue.getSpecific(key: Self.writerKey) == ObjectIdentifier(self) {
      _ = saveDurably(force: false)
    } else {
      writer.sync { _ = saveDurably(force: false) }
    }
  }

  func flushAndReport() async throws {
    let error: SharedSaveError? = await onWriter { self.saveDurably(force: false) }
    if let error { throw error }
  }
}
