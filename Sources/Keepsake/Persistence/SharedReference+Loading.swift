import Foundation

// Loading: on demand, after a change made outside this reference, and replacing unreadable
// stored data.

extension SharedReference {
  func load() async throws {
    // NB (helper/api): a reader key loads asynchronously, showing `isLoading`; see
    // `SharedReaderKey.swift`.
    if let asynchronous = key as? any AsyncLoadingKey<Value> {
      return try await asynchronous.loadAgain(into: self)
    }
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

  /// Takes in a change another process (or another reference) made to the stored data.
  func reloadAfterOutsideChange() {
    defer { finishLoading() }
    if let coordinated {
      reloadCoordinated(coordinated)
      return
    }
    // A pending change made here is newer than what is stored; it is saved next.
    if hasPendingChange() && protectingError() == nil { return }
    do {
      switch try key.reload(in: context) {
      case .unchanged:
        return
      case .missing:
        // Removed from outside (a preference deleted): back to the default.
        replaceValue(fallback)
      case .value(let value):
        replaceValue(value)
      }
      if protectingError() != nil { setLoadError(nil) }
    } catch {
      setLoadError(SharedReference.loadError(error, key: key))
    }
  }
}
