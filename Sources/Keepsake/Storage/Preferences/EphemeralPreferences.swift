import Foundation
import Synchronization

/// Preferences that live in memory only: the throwaway store a test gets for `.appStorage`.
package final class EphemeralPreferences: PreferencesStore {
  private struct State {
    var values: [String: PreferenceValue] = [:]
    var observers: [Int: (key: String, onChange: @Sendable () -> Void)] = [:]
    var nextObserver = 0
  }
  private let state = Mutex(State())

  /// Creates an empty store.
  package init() {}

  package func value(forKey key: String) -> PreferenceValue? {
    state.withLock { $0.values[key] }
  }

  package func set(_ value: PreferenceValue?, forKey key: String) {
    state.withLock { $0.values[key] = value }
  }

  /// Sets a value as another process would, notifying observers of `key`.
  package func setFromOutside(_ value: PreferenceValue?, forKey key: String) {
    let callbacks = state.withLock { state in
      state.values[key] = value
      return state.observers.values.filter { $0.key == key }.map(\.onChange)
    }
    for callback in callbacks { callback() }
  }

  package func observe(
    _ key: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let id = state.withLock { state in
      let id = state.nextObserver
      state.nextObserver += 1
      state.observers[id] = (key, onChange)
      return id
    }
    return StorageSubscription { [weak self] in
      _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
    }
  }

  package func flush() throws {}
}
