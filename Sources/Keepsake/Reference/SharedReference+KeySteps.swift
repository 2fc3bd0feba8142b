import Foundation

// The steps of storage a reference does not share with other writers (preferences, an app's own
// keys): a read asks the key, a save hands it the latest value. Shared storage's steps (lock,
// read, reconcile, write) are in SharedReference+Persistence.swift.
extension SharedReference {
  func readKey(again: Bool) -> Machine.Event {
    do {
      let result: SharedLoadResult<Value>
      if again {
        result = try key.load(in: context).map(SharedLoadResult.value) ?? .missing
      } else {
        result = try key.reload(in: context)
      }
      switch result {
      case .unchanged:
        work.change = .unchanged
        return .found(changed: false)
      case .missing:
        // Removed from outside (a preference deleted): back to the default.
        work.change = .deleted
      case .value(let value):
        work.change = .replaced(value, data: Data(), identity: nil)
      }
      return .found(changed: true)
    } catch {
      work.change = nil
      return .unreadable(SharedReference.loadError(error, key: key))
    }
  }

  /// Hands the latest value to the key, under the inline-save lock: saves made on the mutating
  /// thread and on the lane reach the key in the order of the values they snapshot, so the
  /// latest value is the one stored.
  private func saveInOrder(force: Bool) -> SharedSaveError? {
    persistence.inlineSaves.lastSaved.withLock { lastSaved in
      let (snapshot, generation) = storage.withLock { ($0, self.generation) }
      guard force || generation != lastSaved else { return nil }
      do {
        try key.save(snapshot, in: context)
      } catch let error as SharedLoadError {
        // The key found, at save time, stored data it cannot read: protect it from now on.
        return .protected(error)
      } catch {
        return .writeFailed(keyID: key.id, underlying: error)
      }
      lastSaved = generation
      storage.withLock { _ in savedGeneration = max(savedGeneration, generation) }
      return nil
    }
  }

  func saveToKey() -> Machine.Event {
    switch saveInOrder(force: true) {
    case nil: return .written
    case .protected(let loadError): return .unreadable(loadError)
    case let error?: return .writeFailed(error)
    }
  }

  /// Saves on the mutating thread (keys with ``SaveTiming/immediate``, preferences).
  func saveInline() {
    send(.savedInline(saveInOrder(force: false)))
  }
}
