/// How much a ``TestStore`` requires a test to assert.
///
/// ```swift
/// store.exhaustivity = .off(showSkippedAssertions: true)
/// await store.send(.refreshTapped)
/// await store.receive(.refreshed("alice")) { $0.$session.withLock { $0 = "alice" } }
/// ```
///
/// Nonisolated and `Sendable`.
public enum Exhaustivity: Equatable, Sendable {
  /// Every change of state, shared state included, every received action and every effect
  /// must be asserted. The default.
  case on
  /// Only what the test asserts is checked: an assertion closure describes part of the change,
  /// unasserted received actions are skipped and effects may still run at the end.
  ///
  /// With `showSkippedAssertions`, what an exhaustive store would have failed on (a state change
  /// not asserted, a skipped received action, an effect still running at the end) is reported
  /// as a known issue: listed with the test's results, without failing it. Under XCTest, which
  /// has no known issues on Linux, it is printed.
  case off(showSkippedAssertions: Bool)

  /// Only what the test asserts is checked, and what is skipped is not shown.
  public static let off = Exhaustivity.off(showSkippedAssertions: false)
}
