import Foundation
import Keepsake

/// The stored format of the drafts inbox, with every version it has had.
///
/// | Version | Layout | Change |
/// |---------|--------|--------|
/// | 1 | bare array `[{"id", "text"}]` (pre-release builds also wrote `"pinned"`) | first release |
/// | 2 | envelope, `[{"id", "text", "pinned"}]` | `pinned` added |
/// | 3 | envelope, `[{"id", "body", "pinned", "tags"}]` | `text` renamed `body`; `tags` added |
///
/// The steps show both kinds: 1→2 is typed (decode `DraftV1`, build `DraftV2`), 2→3 is
/// JSON-level (rename a key and add one, with no `DraftV2`-shaped copy of the new model).
///
/// ```swift
/// let drafts = try DraftsFormat.decode(data)  // any version, migrated to [Draft]
/// let data = try DraftsFormat.encode(drafts)  // always version 3
/// ```
nonisolated public enum DraftsFormat: VersionedFormat {
  /// Version 3: `text` renamed `body`, `tags` added.
  public static let currentVersion = 3

  /// Files written before the envelope existed are a bare array of version 1 drafts.
  public static let legacyVersion: Int? = 1

  /// Versions 1 to 3 and the steps between them.
  public static let migrations =
    MigrationChain
    .starting(at: 1, with: [DraftV1].self)
    .migrating(to: 2, as: [DraftV2].self) { drafts in
      // Version 1 had no pinning; pre-release files may carry it, and it is kept.
      drafts.map { DraftV2(id: $0.id, text: $0.text, pinned: $0.pinned ?? false) }
    }
    .migratingJSON(to: 3, as: [Draft].self) { content in
      try content.updateElements { draft in
        try draft.renameKey("text", to: "body")
        try draft.addMissingKey("tags", value: [])
      }
    }
}
