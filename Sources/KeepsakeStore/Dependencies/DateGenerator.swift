import Foundation

/// Tells the current date: the clock's in an app, a fixed one in a test.
///
/// Read it with `@Dependency(\.date) var date` and call it, or read ``now``:
///
/// ```swift
/// case .saveTapped:
///   state.savedAt = date.now
/// ```
///
/// Its test value is ``constant(_:)`` of `Date(timeIntervalSince1970: 0)`, 1970-01-01 00:00:00
/// UTC, so a test can assert dates without setting anything. `DateGenerator` is `Sendable`;
/// call it from any executor.
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  /// A generator that calls `generate` for every date.
  public init(_ generate: @escaping @Sendable () -> Date) {
    self.generate = generate
  }

  /// The current date.
  public var now: Date { generate() }

  /// The current date.
  public func callAsFunction() -> Date {
    generate()
  }

  /// The system's current date (`Date()`): the live value.
  public static var live: DateGenerator {
    DateGenerator { Date() }
  }

  /// Always `date`.
  public static func constant(_ date: Date) -> DateGenerator {
    DateGenerator { date }
  }
}

extension DependencyValues {
  /// The current date: ``DateGenerator/live`` in an app, 1970-01-01 00:00:00 UTC under test.
  public var date: DateGenerator {
    get { self[DateGeneratorKey.self] }
    set { self[DateGeneratorKey.self] = newValue }
  }
}

private enum DateGeneratorKey: DependencyKey {
  static let liveValue = DateGenerator.live
  static let testValue = DateGenerator.constant(Date(timeIntervalSince1970: 0))
}
