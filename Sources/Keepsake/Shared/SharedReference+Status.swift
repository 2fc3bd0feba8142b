import Observation
import Synchronization

// Load errors, save errors, conflicts and the loading state: read through Observation, set
// with its `willSet` and `didSet`.

extension SharedReference {
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
}
