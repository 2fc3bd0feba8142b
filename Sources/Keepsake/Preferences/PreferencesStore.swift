import Foundation

/// Where `.appStorage` keys keep their values: a suite of key-value preferences.
///
/// Implementations: ``FilePreferences`` (Keepsake's own file per suite, the default on Linux),
/// ``UserDefaultsPreferences`` (the default on Apple platforms, selectable everywhere) and
/// ``InMemoryPreferences`` (in memory, the store of a test). Every method may be called from any
/// thread; `set` must not do file I/O on the caller's thread.
package protocol PreferencesStore: Sendable {
  /// The stored value for `key`, or `nil` when none is stored.
  func value(forKey key: String) -> PreferenceValue?

  /// The stored value for `key` as a URL key reads it: like ``value(forKey:)``, but a store that
  /// keeps URLs in a form of its own (`UserDefaults`' archived URLs) returns them as
  /// ``PreferenceValue/url(_:)``.
  func urlValue(forKey key: String) -> PreferenceValue?

  /// Stores `value` for `key` (or removes it when `nil`).
  func set(_ value: PreferenceValue?, forKey key: String)

  /// Calls `onChange` (on any thread) when `key` may have been changed by someone else.
  func observe(
    _ key: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription?

  /// Writes pending changes durably.
  ///
  /// - Throws: The error of the last write that failed, if the store could not be saved.
  func flush() throws

  /// Writes pending changes durably, and says whether `key`'s change is durable: a write that
  /// failed for other keys only (a value of theirs another version stored) is theirs.
  ///
  /// - Throws: The error of the last write that failed, while `key`'s change is not saved.
  func flush(forKey key: String) throws

  /// Why the suite as a whole could not be read, if it could not.
  var readError: (any Error)? { get }

  /// Why `key`'s stored value could not be read, if it could not: the suite as a whole, or
  /// that one value.
  func readError(forKey key: String) -> (any Error)?

  /// The error of the last read or write that failed, if the suite could not be read or saved.
  var lastError: (any Error)? { get }
}

extension PreferencesStore {
  /// Why the suite as a whole could not be read, if it could not: its keys without a value
  /// report it as their load error rather than show their defaults as if nothing were stored.
  var readError: (any Error)? { nil }

  /// The suite's read error: a store that reads its suite whole has no error of one key.
  func readError(forKey key: String) -> (any Error)? { readError }

  /// The stored value, as it is: a store without a URL form of its own keeps URLs as
  /// ``PreferenceValue/url(_:)``.
  func urlValue(forKey key: String) -> PreferenceValue? { value(forKey: key) }

  /// Writes pending changes durably: a store that writes its suite whole fails every key alike.
  func flush(forKey key: String) throws { try flush() }

  /// The suite's read error: a store that keeps no error of its writes has no other.
  package var lastError: (any Error)? { readError }
}

/// The stores of preferences, for the package's tools: an app reaches them through
/// `.appStorage` keys, in the store its storage context chooses.
package enum PreferencesStores {
  /// Values in memory, gone with the store: a test's.
  package static func inMemory() -> any PreferencesStore { InMemoryPreferences() }

  /// The suite stored at `url` (Keepsake's own file per suite), opened through `fileSystem`,
  /// its current values read.
  package static func file(
    at url: URL, fileSystem: any FileSystem = SystemCalls.live.fileSystem
  ) -> any PreferencesStore {
    FilePreferences(url: url, fileSystem: fileSystem)
  }

  /// The `UserDefaults` suite named `suiteName`, or the standard one.
  package static func userDefaults(suiteName: String?) -> any PreferencesStore {
    UserDefaultsPreferences(suiteName: suiteName)
  }
}
