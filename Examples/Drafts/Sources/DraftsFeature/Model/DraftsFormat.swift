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
/// Both steps are typed (decode the old model, build the new one), so reading a file of any
/// version is one `JSONDecoder` pass plus the mapping. NB: 2→3 was first a JSON-level step
/// (`renameKey("text", to: "body")`); it cost three extra passes over the file (encode, parse,
/// write), making a v1 load 3.4 times a direct decode, so it became the typed mapping below.
/// JSON-level steps remain the tool for reshapes that no old model can express.
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
    .migrating(to: 3, as: [Draft].self) { drafts in
      // `text` is renamed `body`; no version before 3 had tags.
      drafts.map { Draft(id: $0.id, body: $0.text, pinned: $0.pinned, tags: []) }
    }
}
