import Foundation
import Synchronization

/// Preferences kept by Foundation's `UserDefaults`: the default on Apple platforms.
///
/// On Linux it stays selectable, but note what was measured there: swift-corelibs rewrites the
/// whole plist in place (no temporary file, no rename, no lock), so a crash mid-write can tear
/// it, and processes writing at once lose each other's keys. ``FilePreferences`` is the Linux
/// default for that reason.
final class UserDefaultsPreferences: PreferencesStore {
  // NB: `UserDefaults` is documented thread-safe; it is not marked `Sendable` on every platform.
  private nonisolated(unsafe) let defaults: UserDefaults

  /// Wraps `UserDefaults(suiteName:)`, or `.standard` when `suiteName` is `nil`.
  init(suiteName: String? = nil) {
    self.defaults = suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
  }

  /// Wraps a `UserDefaults` instance (a key's `store:`).
  init(_ defaults: UserDefaults) {
    self.defaults = defaults
  }

  func value(forKey key: String) -> PreferenceValue? {
    let object = defaults.object(forKey: key)
    #if canImport(Darwin)
      // NB: numbers come back as NSNumber; only a CFBoolean is a real Bool.
      if let number = object as? NSNumber {
        if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
        if CFNumberIsFloatType(number) { return .double(number.doubleValue) }
        return .int(number.intValue)
      }
    #endif
    switch object {
    case let value as Bool: return .bool(value)
    case let value as Int: return .int(value)
    case let value as Double: return .double(value)
    case let value as String: return .string(value)
    case let value as Data: return .data(value)
    case let value as Date: return .date(value)
    case let value as [String]: return .strings(value)
    default: return nil
    }
  }

  /// The stored value; on Apple platforms a URL archived the way `UserDefaults.set(_:forKey:)`
  /// stores one is read by the platform's own `url(forKey:)`.
  ///
  /// Elsewhere the archive is left to the URL key's decoding
  /// (``PreferenceValue/url(fromArchive:)``), which reads it as swift-corelibs' `url(forKey:)`
  /// does: that one traps on data that is no archive, and is never called.
  func urlValue(forKey key: String) -> PreferenceValue? {
    let stored = value(forKey: key)
    #if canImport(Darwin)
      // NB: the platform's reading of what its `set(_:forKey:)` wrote, which put `~` in place of
      // the home folder in a file URL's path; asked only for data that is an archived URL.
      if case .data(let data) = stored, PreferenceValue.url(fromArchive: data) != nil,
        let url = defaults.url(forKey: key)
      {
        return .url(url)
      }
    #endif
    return stored
  }

  /// Stores `value`; a URL the way `UserDefaults.set(_:forKey:)` stores one on Apple platforms,
  /// as archived data, so SwiftUI's `@AppStorage` and `url(forKey:)` read what a key wrote.
  func set(_ value: PreferenceValue?, forKey key: String) {
    #if canImport(Darwin)
      // NB: the platform's own call: it archives the URL, `~` in place of the home folder.
      if case .url(let url) = value { return defaults.set(url, forKey: key) }
    #endif
    defaults.set(value?.propertyListObject, forKey: key)
  }

  /// Calls `onChange` when `key` changes.
  ///
  /// On Apple platforms by key-value observing of the key itself, so a change made by another
  /// process (an app extension on an App Group suite) is seen, and a change of another key wakes
  /// no one. Elsewhere, and for keys KVO would read as a key path (with `.` or `@`), on
  /// `UserDefaults.didChangeNotification`, which this process's changes of any key post.
  func observe(
    _ key: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    #if canImport(Darwin)
      if !key.contains("."), !key.contains("@") {
        let observer = DefaultsKeyObserver(defaults, key: key, onChange: onChange)
        return StorageSubscription { observer.cancel() }
      }
    #endif
    let token = NotificationCenter.default.addObserver(
      forName: UserDefaults.didChangeNotification, object: nil, queue: nil
    ) { _ in onChange() }
    let box = UncheckedBox(token)
    return StorageSubscription { NotificationCenter.default.removeObserver(box.value) }
  }

  func flush() throws {
    defaults.synchronize()
  }
}

#if canImport(Darwin)
  /// Observes one key of a `UserDefaults` by KVO, which also reports other processes' changes.
  private final class DefaultsKeyObserver: NSObject, @unchecked Sendable {
    // NB: immutable after init but for `isObserving`, which a lock guards; `UserDefaults` is
    // documented thread-safe.
    private nonisolated(unsafe) let defaults: UserDefaults
    private let key: String
    private let onChange: @Sendable () -> Void
    private let isObserving = Mutex(true)

    init(_ defaults: UserDefaults, key: String, onChange: @escaping @Sendable () -> Void) {
      self.defaults = defaults
      self.key = key
      self.onChange = onChange
      super.init()
      defaults.addObserver(self, forKeyPath: key, options: [], context: nil)
    }

    override func observeValue(
      forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
      context: UnsafeMutableRawPointer?
    ) {
      onChange()
    }

    /// Stops observing; later calls do nothing.
    func cancel() {
      let wasObserving = isObserving.withLock { observing in
        defer { observing = false }
        return observing
      }
      if wasObserving { defaults.removeObserver(self, forKeyPath: key, context: nil) }
    }

    deinit { cancel() }
  }
#endif

/// Carries a value Foundation hands out without a `Sendable` annotation.
private struct UncheckedBox<Value>: @unchecked Sendable {
  // NB: only ever read once, to remove a NotificationCenter observer token.
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// A `UserDefaults` instance a key was given as `store:`, compared by identity.
struct UserDefaultsReference: @unchecked Sendable {
  // NB: `UserDefaults` is documented thread-safe; it is not marked `Sendable` on every platform.
  let defaults: UserDefaults

  init(_ defaults: UserDefaults) { self.defaults = defaults }

  /// The instance's name in key identities and, outside the live context, the suite that
  /// stands in for it.
  ///
  /// NB: the key holds the instance, so its address is not reused while a key names it.
  var name: String {
    "UserDefaults-" + String(UInt(bitPattern: ObjectIdentifier(defaults).hashValue), radix: 16)
  }
}
