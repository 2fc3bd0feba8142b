import Foundation
import Synchronization

/// Preferences that live in memory only: the store a test's isolated storage has for `.appStorage`.
final class InMemoryPreferences: PreferencesStore {
  private struct State {
    var values: [String: PreferenceValue] = [:]
    var observers = KeyedObservers()
  }
  private let state = Mutex(State())

  /// Creates an empty store.
  init() {}

  func value(forKey key: String) -> PreferenceValue? {
    state.withLock { $0.values[key] }
  }

  func set(_ value: PreferenceValue?, forKey key: String) {
    state.withLock { $0.values[key] = value }
  }

  /// Sets a value as another process would, notifying observers of `key`.
  func setFromOutside(_ value: PreferenceValue?, forKey key: String) {
    let callbacks = state.withLock { state in
      state.values[key] = value
      return state.observers.callbacks { $0 == key }
    }
    for callback in callbacks { callback() }
  }

  func observe(
    _ key: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let id = state.withLock { $0.observers.add(key, onChange) }
    return StorageSubscription { [weak self] in self?.state.withLock { $0.observers.remove(id) } }
  }

  func flush() throws {}
}
