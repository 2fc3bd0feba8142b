import Foundation

/// What the inbox knows about the current session: how many changes, and the last one.
///
/// Kept in a shared in-memory key, so any feature may read it.
nonisolated public struct Session: Equatable, Sendable {
  /// How many changes this session made.
  public var changes: Int
  /// A short description of the last change.
  public var lastChange: String

  /// Creates a session record.
  public init(changes: Int, lastChange: String) {
    self.changes = changes
    self.lastChange = lastChange
  }
}
