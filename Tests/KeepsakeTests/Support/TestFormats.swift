import Foundation
import Keepsake

/// Small formats used by the format tests.
enum TestFormats {
  struct ItemV1: Codable, Equatable, Sendable {
    var name: String
  }

  struct ItemV2: Codable, Equatable, Sendable {
    var name: String
    var count: Int
  }

  struct Item: Codable, Equatable, Sendable {
    var title: String
    var count: Int
  }

  /// 1 (legacy bare array) → 2 typed (count added) → 3 JSON-level (name renamed title).
  enum Items: VersionedFormat {
    static let currentVersion = 3
    static let legacyVersion: Int? = 1
    static let migrations =
      MigrationChain
      .starting(at: 1, with: [ItemV1].self)
      .migrating(to: 2, as: [ItemV2].self) { items in
        try items.map { item in
          guard !item.name.isEmpty else {
            throw MigrationError("a name is empty", path: [.key("name")])
          }
          return ItemV2(name: item.name, count: 1)
        }
      }
      .migratingJSON(to: 3, as: [Item].self) { content in
        try content.updateElements { try $0.renameKey("name", to: "title") }
      }
  }

  /// The same history without a legacy version.
  enum NoLegacy: VersionedFormat {
    typealias Value = [Item]
    static let currentVersion = 3
    static let migrations = Items.migrations
  }

  /// A history that dropped versions 1 and 2.
  enum Trimmed: VersionedFormat {
    typealias Value = [Item]
    static let currentVersion = 3
  }

  /// A JSON step that produces content the next model cannot decode.
  enum BrokenStep: VersionedFormat {
    static let currentVersion = 2
    static let migrations =
      MigrationChain
      .starting(at: 1, with: [ItemV1].self)
      .migratingJSON(to: 2, as: [Item].self) { content in
        try content.updateElements { try $0.renameKey("name", to: "title") }  // forgets "count"
      }
  }
}
