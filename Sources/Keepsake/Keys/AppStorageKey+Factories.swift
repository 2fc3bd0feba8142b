import Foundation

// One factory per supported type, so `@Shared(.appStorage("key")) var flag = false` picks the
// storage from the declared type. Concrete types win over the generic `Codable` overload, and
// `RawRepresentable & Codable` types are stored by raw value.
//
// Every factory takes the same two ways to name where the value lives: `suiteName:` (a
// preferences suite, the default suite when `nil`) or `store:` (a `UserDefaults` instance, as
// swift-sharing spells it); see `AppStorageKey` for what each does under test.

extension SharedKey {
  /// A `Bool` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Bool> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .bool)
  }

  /// An `Int` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Int> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .int)
  }

  /// A `Double` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Double> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .double)
  }

  /// A `String` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<String> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .string)
  }

  /// A `Data` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Data> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .data)
  }

  /// A `URL` preference.
  ///
  /// Read from every form `UserDefaults` keeps a URL in (archived URL data, as
  /// `UserDefaults.set(_:forKey:)` and SwiftUI's `@AppStorage` write it; a path; a URL string)
  /// and, in `UserDefaults`, written as `set(_:forKey:)` writes it, so `url(forKey:)` and
  /// SwiftUI's `@AppStorage` read what the key wrote.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<URL> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .url)
  }

  /// A `Date` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Date> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .date)
  }

  /// A `[String]` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<[String]> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .strings)
  }

  /// A preference holding a `RawRepresentable` value by its `String` raw value.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .rawString)
  }

  /// A preference holding a `RawRepresentable` value by its `Int` raw value.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .rawInt)
  }

  /// A preference holding a `RawRepresentable & Codable` value by its `String` raw value.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .rawString)
  }

  /// A preference holding a `RawRepresentable & Codable` value by its `Int` raw value.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .rawInt)
  }

  /// A preference holding any `Codable` value, stored as JSON data.
  public static func appStorage<Value: Codable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Value> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .json)
  }
}

// Optionals are stored as their wrapped type's native value, and setting `nil` removes the
// preference, as with `@AppStorage`: not as JSON `null` through the `Codable` overload.
extension SharedKey {
  /// An optional `Bool` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Bool?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.bool))
  }

  /// An optional `Int` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Int?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.int))
  }

  /// An optional `Double` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Double?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.double))
  }

  /// An optional `String` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<String?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.string))
  }

  /// An optional `Data` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Data?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.data))
  }

  /// An optional `URL` preference; `nil` removes it.
  ///
  /// Stored and read in the same forms as a `URL` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<URL?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.url))
  }

  /// An optional `Date` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<Date?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.date))
  }

  /// An optional `[String]` preference; `nil` removes it.
  public static func appStorage(_ key: String, suiteName: String? = nil, store: UserDefaults? = nil)
    -> Self
  where Self == AppStorageKey<[String]?> {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.strings))
  }

  /// An optional `RawRepresentable` preference stored by its `String` raw value; `nil` removes it.
  public static func appStorage<Wrapped: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.rawString))
  }

  /// An optional `RawRepresentable` preference stored by its `Int` raw value; `nil` removes it.
  public static func appStorage<Wrapped: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.rawInt))
  }

  /// An optional `RawRepresentable & Codable` preference stored by its `String` raw value.
  public static func appStorage<Wrapped: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.rawString))
  }

  /// An optional `RawRepresentable & Codable` preference stored by its `Int` raw value.
  public static func appStorage<Wrapped: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil, store: UserDefaults? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, store: store, coding: .optional(.rawInt))
  }
}
