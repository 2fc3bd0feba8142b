import Foundation
import Synchronization

/// Makes UUIDs: random ones in an app, predictable ones in a test.
///
/// Read it with `@Dependency(\.uuid) var uuid` and call it: `let id = uuid()`.
///
/// ```swift
/// let store = TestStore(initialState: Inbox.State()) { Inbox() }
/// await store.send(.add(text: "Call the bank")) {
///   $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "Call the bank")] }
/// }
/// ```
///
/// Its test value is ``incrementing``, made fresh for each test and each test store:
/// `UUID(0)`, `UUID(1)`, and so on. `UUIDGenerator` is `Sendable`; call it from any executor.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  /// A generator that calls `generate` for every UUID.
  public init(_ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
  }

  /// A new UUID.
  public func callAsFunction() -> UUID {
    generate()
  }

  /// Random UUIDs (`UUID()`): the live value.
  public static var live: UUIDGenerator {
    UUIDGenerator { UUID() }
  }

  /// UUIDs in order, from `UUID(0)`.
  ///
  /// `UUID(0)`, `UUID(1)`, `UUID(2)`, ...: each generator counts on its own.
  public static var incrementing: UUIDGenerator {
    let counter = Counter()
    return UUIDGenerator { UUID(counter.next()) }
  }

  /// Always `uuid`.
  public static func constant(_ uuid: UUID) -> UUIDGenerator {
    UUIDGenerator { uuid }
  }

  private final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
      value.withLock { value in
        defer { value += 1 }
        return value
      }
    }
  }
}

extension DependencyValues {
  /// Makes UUIDs: ``UUIDGenerator/live`` in an app, ``UUIDGenerator/incrementing`` under test.
  public var uuid: UUIDGenerator {
    get { self[UUIDGeneratorKey.self] }
    set { self[UUIDGeneratorKey.self] = newValue }
  }
}

private enum UUIDGeneratorKey: DependencyKey {
  static let liveValue = UUIDGenerator.live
  static var testValue: UUIDGenerator { .incrementing }
}
