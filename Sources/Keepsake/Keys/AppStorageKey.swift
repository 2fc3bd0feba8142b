import Foundation

/// A key that keeps its value in preferences: `UserDefaults` on Apple platforms, Keepsake's own
/// `FilePreferences` on Linux, in-memory preferences under test.
///
/// Supports `Bool`, `Int`, `Double`, `String`, `Data`, `URL`, `Date`, `[String]`,
/// `RawRepresentable` values with `String` or `Int` raw values, and any `Codable` value (stored
/// as JSON data).
///
/// ```swift
/// @Shared(.appStorage("hasSeenIntro")) var hasSeenIntro = false
/// @Shared(.appStorage("theme", suiteName: "group.app")) var theme = Theme.system
/// @Shared(.appStorage("lastSync", store: UserDefaults(suiteName: "group.app")!))
/// var lastSync: Date?
/// ```
///
/// `store:` takes a `UserDefaults` instance and uses it, on every platform, in the live storage
/// context only. Everywhere else (a test, an Xcode preview, a context given to
/// ``StorageContext/setAppDefault(_:)``) the key gets that context's own preferences for the
/// instance instead, so nothing under test writes the real defaults. Passing
/// `UserDefaults.standard` is the same as passing neither `store:` nor `suiteName:`. Pass one of
/// `suiteName:` and `store:`, not both.
///
/// A stored value of another type than the key's (say, a string where a number is expected) is
/// reported as a ``SharedLoadError`` and left in place, like an unreadable file.
public struct AppStorageKey<Value: Sendable>: SharedKey {
  /// The preferences key.
  public let key: String
  /// The suite, or `nil` for the default suite.
  public let suiteName: String?
  /// The `UserDefaults` instance given as `store:`, if any (never `UserDefaults.standard`, which
  /// is the default suite).
  public var store: UserDefaults? { explicitStore?.defaults }
  private let explicitStore: UserDefaultsReference?
  private let coding: PreferenceCoding<Value>

  init(
    _ key: String, suiteName: String?, store: UserDefaults? = nil, coding: PreferenceCoding<Value>
  ) {
    precondition(
      suiteName == nil || store == nil,
      "appStorage(\"\(key)\"): pass suiteName: or store:, not both.")
    self.key = key
    self.suiteName = suiteName
    self.explicitStore = store.flatMap { $0 === UserDefaults.standard ? nil : .init($0) }
    self.coding = coding
    if let explicitStore { UserDefaultsSuites.noteUse(of: explicitStore.defaults, key: key) }
  }

  public var id: SharedKeyID {
    let suite = explicitStore?.name ?? suiteName
    return SharedKeyID(kind: "appStorage", name: suite.map { "\($0):\(key)" } ?? key)
  }

  /// The preferences this key reads and writes in `context`.
  private func preferences(in context: StorageContext) -> any PreferencesStore {
    guard let explicitStore else { return context.preferences(suiteName: suiteName) }
    return context.preferences(of: explicitStore)
  }

  public func load(in context: StorageContext) throws -> Value? {
    let store = preferences(in: context)
    guard let stored = coding.read(store, key) else {
      // A suite that could not be read is not a suite without the key.
      if let error = store.readError(forKey: key) {
        throw SharedLoadError(keyID: id, underlying: error)
      }
      return nil
    }
    guard let value = coding.decode(stored) else {
      throw SharedLoadError(
        keyID: id, underlying: AppStorageError.unexpectedType(key: key, stored: stored))
    }
    return value
  }

  public func save(_ value: Value, in context: StorageContext) throws {
    preferences(in: context).set(try coding.encode(value), forKey: key)
  }

  public func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    preferences(in: context).observe(key, onChange: onChange)
  }
}

extension AppStorageKey: CustomStringConvertible {
  /// The key as an app writes it: `.appStorage("count")`, `.appStorage("count", suiteName:
  /// "group.app")`, `.appStorage("count", store: UserDefaults(suiteName: "group.app"))`.
  public var description: String {
    let name = SharedDescription.literal(key)
    if let explicitStore {
      let suite = UserDefaultsSuites.suiteName(of: explicitStore.defaults)
      let store = suite.map { "UserDefaults(suiteName: \(SharedDescription.literal($0)))" }
      return ".appStorage(\(name), store: \(store ?? explicitStore.name))"
    }
    guard let suiteName else { return ".appStorage(\(name))" }
    return ".appStorage(\(name), suiteName: \(SharedDescription.literal(suiteName)))"
  }
}

extension AppStorageKey: DurableKey {
  func makeDurable(in context: StorageContext) throws {
    try preferences(in: context).flush(forKey: key)
  }
}

/// Converts a key's values to and from what preferences store.
struct PreferenceCoding<Value: Sendable>: Sendable {
  var decode: @Sendable (PreferenceValue) -> Value?
  /// The preference to store, or `nil` to remove it (an optional set to `nil`).
  var encode: @Sendable (Value) throws -> PreferenceValue?
  /// Reads the stored preference: a URL key asks for the store's own URL form too.
  var read: @Sendable (any PreferencesStore, String) -> PreferenceValue? = {
    $0.value(forKey: $1)
  }
}

extension PreferenceCoding {
  /// An optional stored as its wrapped type's native value; `nil` removes the preference, the
  /// way `UserDefaults` users expect.
  static func optional<Wrapped: Sendable>(_ wrapped: PreferenceCoding<Wrapped>) -> Self
  where Value == Wrapped? {
    .init(
      decode: { stored in wrapped.decode(stored).map { .some($0) } },
      encode: { value in try value.flatMap { try wrapped.encode($0) } }, read: wrapped.read)
  }
}

extension PreferenceCoding {
  static var bool: PreferenceCoding<Bool> {
    .init(
      decode: {
        switch $0 {
        case .bool(let value): return value
        case .int(let value) where value == 0 || value == 1: return value == 1
        default: return nil
        }
      }, encode: { .bool($0) })
  }

  static var int: PreferenceCoding<Int> {
    .init(
      decode: {
        switch $0 {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
      }, encode: { .int($0) })
  }

  static var double: PreferenceCoding<Double> {
    .init(
      decode: {
        switch $0 {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
      }, encode: { .double($0) })
  }

  static var string: PreferenceCoding<String> {
    .init(
      decode: { if case .string(let value) = $0 { value } else { nil } }, encode: { .string($0) })
  }

  static var data: PreferenceCoding<Data> {
    .init(decode: { if case .data(let value) = $0 { value } else { nil } }, encode: { .data($0) })
  }

  /// A URL, read from every form `UserDefaults` keeps one in: a URL, archived URL data (what
  /// `UserDefaults.set(_:forKey:)` and SwiftUI's `@AppStorage` write), a path or a URL string.
  static var url: PreferenceCoding<URL> {
    .init(
      decode: {
        switch $0 {
        case .url(let value): return value
        case .string(let value): return PreferenceValue.url(fromString: value)
        case .data(let value): return PreferenceValue.url(fromArchive: value)
        default: return nil
        }
      }, encode: { .url($0) }, read: { $0.urlValue(forKey: $1) })
  }

  static var date: PreferenceCoding<Date> {
    .init(decode: { if case .date(let value) = $0 { value } else { nil } }, encode: { .date($0) })
  }

  static var strings: PreferenceCoding<[String]> {
    .init(
      decode: { if case .strings(let value) = $0 { value } else { nil } },
      encode: { .strings($0) })
  }
}

extension PreferenceCoding where Value: RawRepresentable, Value.RawValue == String {
  static var rawString: Self {
    .init(
      decode: { if case .string(let raw) = $0 { Value(rawValue: raw) } else { nil } },
      encode: { .string($0.rawValue) })
  }
}

extension PreferenceCoding where Value: RawRepresentable, Value.RawValue == Int {
  static var rawInt: Self {
    .init(
      decode: { if case .int(let raw) = $0 { Value(rawValue: raw) } else { nil } },
      encode: { .int($0.rawValue) })
  }
}

extension PreferenceCoding where Value: Codable {
  static var json: Self {
    .init(
      decode: {
        guard case .data(let data) = $0 else { return nil }
        return try? JSONCoding.decode(Value.self, from: data)
      },
      encode: { value in .data(try JSONCoding.encode(value)) })
  }
}
