import Foundation

// One factory per supported type, so `@Shared(.appStorage("key")) var flag = false` picks the
// storage from the declared type. Concrete types win over the generic `Codable` overload, and
// `RawRepresentable & Codable` types are stored by raw value.

extension SharedKey {
  /// A `Bool` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<Bool> { AppStorageKey(key, suiteName: suiteName, coding: .bool) }

  /// An `Int` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<Int> { AppStorageKey(key, suiteName: suiteName, coding: .int) }

  /// A `Double` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<Double> {
    AppStorageKey(key, suiteName: suiteName, coding: .double)
  }

  /// A `String` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<String> {
    AppStorageKey(key, suiteName: suiteName, coding: .string)
  }

  /// A `Data` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<Data> { AppStorageKey(key, suiteName: suiteName, coding: .data) }

  /// A `URL` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<URL> { AppStorageKey(key, suiteName: suiteName, coding: .url) }

  /// A `Date` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<Date> { AppStorageKey(key, suiteName: suiteName, coding: .date) }

  /// A `[String]` preference.
  public static func appStorage(_ key: String, suiteName: String? = nil) -> Self
  where Self == AppStorageKey<[String]> {
    AppStorageKey(key, suiteName: suiteName, coding: .strings)
  }

  /// A preference holding a `RawRepresentable` value by its `String` raw value.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, coding: .rawString)
  }

  /// A preference holding a `RawRepresentable` value by its `Int` raw value.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String, suiteName: String? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, coding: .rawInt)
  }

  /// A preference holding a `RawRepresentable & Codable` value by its `String` raw value.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == String {
    AppStorageKey(key, suiteName: suiteName, coding: .rawString)
  }

  /// A preference holding a `RawRepresentable & Codable` value by its `Int` raw value.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String, suiteName: String? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue == Int {
    AppStorageKey(key, suiteName: suiteName, coding: .rawInt)
  }

  /// A preference holding any `Codable` value, stored as JSON data.
  public static func appStorage<Value: Codable & Sendable>(
    _ key: String, suiteName: String? = nil
  ) -> Self where Self == AppStorageKey<Value> {
    AppStorageKey(key, suiteName: suiteName, coding: .json)
  }
}
