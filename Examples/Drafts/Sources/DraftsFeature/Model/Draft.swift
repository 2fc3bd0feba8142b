import Foundation

/// A draft in the inbox: the current model, stored as version 3 of ``DraftsFormat``.
///
/// It is a plain value, usable from any isolation domain.
///
/// > Important: This type *is* format version 3. Changing a stored property (adding, renaming,
/// > removing, changing a type) changes what the app writes: bump ``DraftsFormat/currentVersion``,
/// > freeze this shape as `DraftV3`, and add a migration. The drift check in the tests fails
/// > until you do.
nonisolated public struct Draft: Codable, Equatable, Hashable, Identifiable, Sendable {
  /// A stable identity, kept across every format version.
  public var id: UUID
  /// The text of the draft (called `text` before version 3).
  public var body: String
  /// Whether the draft stays at the top of the inbox (added in version 2).
  public var pinned: Bool
  /// Labels, in the user's order (added in version 3).
  // NB: Not `@Defaulted`: files older than version 3 get `tags` from the 2→3 migration, and Swift
  // 6.3 does not allow property wrappers in a `nonisolated` struct.
  public var tags: [String]

  /// Creates a draft.
  public init(id: UUID = UUID(), body: String, pinned: Bool = false, tags: [String] = []) {
    self.id = id
    self.body = body
    self.pinned = pinned
    self.tags = tags
  }
}
