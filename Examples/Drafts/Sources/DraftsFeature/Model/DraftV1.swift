import Foundation

/// A draft as version 1 stored it: a bare JSON array, before the app adopted the envelope.
///
/// Frozen: files of this shape are on users' devices. `pinned` is optional because the
/// pre-release builds already wrote it, while version 1 proper did not.
nonisolated struct DraftV1: Codable, Equatable, Sendable {
  var id: UUID
  var text: String
  var pinned: Bool?
}
