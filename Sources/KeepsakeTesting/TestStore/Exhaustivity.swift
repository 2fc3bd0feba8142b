/// How much a ``TestStore`` requires a test to assert.
///
/// Nonisolated and `Sendable`.
public enum Exhaustivity: Equatable, Sendable {
  /// Every change of state, shared state included, every received action and every effect
  /// must be asserted. The default.
  case on
  /// Only what the test asserts is checked: an assertion closure describes part of the change,
  /// unasserted received actions are skipped and effects may still run at the end.
  case off
}
