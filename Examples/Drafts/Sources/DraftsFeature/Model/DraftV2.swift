import Foundation

/// A draft as version 2 stored it: `{"version": 2, "content": [{"id", "text", "pinned"}]}`.
///
/// Frozen: files of this shape are on users' devices.
nonisolated struct DraftV2: Codable, Equatable, Sendable {
  var id: UUID
  var text: String
  var pinned: Bool
}
