import Keepsake

/// The stored format of ``CounterValue``: version 1, with no history yet.
///
/// ```swift
/// @Shared(.fileStorage(url, format: CounterFormat.self)) var value = CounterValue.make(
///   writer: "crash", counter: 0)
/// ```
nonisolated public enum CounterFormat: VersionedFormat {
  /// The stored value.
  public typealias Value = CounterValue

  /// The first and only version.
  public static let currentVersion = 1
}
