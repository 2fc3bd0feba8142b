import Foundation

/// The versions of a format, each with its model type, and one migration step between each
/// version and the next.
///
/// Build it from the oldest version the app still reads, adding one step per version:
///
/// ```swift
/// static let migrations = MigrationChain
///   .starting(at: 1, with: [DraftV1].self)
///   .migrating(to: 2, as: [DraftV2].self) { old in
///     old.map { DraftV2(id: $0.id, text: $0.text, pinned: $0.pinned ?? false) }
///   }
///   .migratingJSON(to: 3, as: [Draft].self) { content in
///     try content.updateElements { try $0.renameKey("text", to: "body") }
///   }
/// ```
///
/// A *typed* step (``migrating(to:as:_:)``) decodes the old model and builds the new one; it is
/// the clearest and is checked by the compiler. A *JSON-level* step
/// (``migratingJSON(to:as:_:)``) edits the raw content, which suits renames and reshapes where
/// the old model would only be a copy of the new one with another key.
///
/// > Important: Each historical model type is frozen with its version: give it its own type
/// > (`DraftV1`), never reuse the current model for an old version.
///
/// `Latest` is the model of the newest version in the chain; a format's chain must end at its
/// ``VersionedFormat/currentVersion`` with its ``VersionedFormat/Value``.
public struct MigrationChain<Latest: Codable & Sendable>: Sendable {
  /// One stage per version, ascending and consecutive.
  let stages: [MigrationStage]
  /// `steps[i]` migrates `stages[i]` to `stages[i + 1]`.
  let steps: [MigrationStep]

  /// The oldest version the chain reads.
  public var oldestVersion: Int { stages[0].version }

  /// The newest version, whose model is `Latest`.
  public var latestVersion: Int { stages[stages.count - 1].version }

  /// Starts a chain at `version`, whose files hold a `model`.
  ///
  /// - Precondition: `version` is at least 1.
  public static func starting(at version: Int, with model: Latest.Type) -> Self {
    precondition(version >= 1, "Format versions start at 1, not \(version).")
    return Self(stages: [MigrationStage(version: version, model: model)], steps: [])
  }

  /// Adds `version`, whose model is `Next`, reached from the previous version by a typed `step`.
  ///
  /// The step receives the decoded previous model and returns the new one. Throw a
  /// ``MigrationError`` (or any error) when the old value cannot be carried forward; the read
  /// fails with ``FormatError/migrationFailed(from:to:codingPath:reason:)`` and the file is left
  /// untouched.
  ///
  /// - Precondition: `version` is ``latestVersion`` + 1.
  public func migrating<Next: Codable & Sendable>(
    to version: Int,
    as model: Next.Type = Next.self,
    _ step: @escaping @Sendable (Latest) throws -> Next
  ) -> MigrationChain<Next> {
    checkNext(version)
    let erased: @Sendable (any Sendable) throws -> any Sendable = { old in
      guard let old = old as? Latest else {
        preconditionFailure(
          "Keepsake bug: migration \(version - 1)→\(version) got \(type(of: old)).")
      }
      return try step(old)
    }
    return MigrationChain<Next>(
      stages: stages + [MigrationStage(version: version, model: model)],
      steps: steps + [.typed(erased)]
    )
  }

  /// Adds `version`, whose model is `Next`, reached from the previous version by editing the raw
  /// JSON content in place.
  ///
  /// The step receives the content exactly as the file holds it (for an older typed stage, as
  /// that model encodes). After the step, the content must decode as `Next`. Use the editing
  /// helpers on ``JSONValue`` (``JSONValue/renameKey(_:to:)``,
  /// ``JSONValue/updateElements(_:)``) so failures carry their path.
  ///
  /// - Precondition: `version` is ``latestVersion`` + 1.
  public func migratingJSON<Next: Codable & Sendable>(
    to version: Int,
    as model: Next.Type = Next.self,
    _ step: @escaping @Sendable (inout JSONValue) throws -> Void
  ) -> MigrationChain<Next> {
    checkNext(version)
    return MigrationChain<Next>(
      stages: stages + [MigrationStage(version: version, model: model)],
      steps: steps + [.json(step)]
    )
  }

  private func checkNext(_ version: Int) {
    precondition(
      version == latestVersion + 1,
      "Migrations go one version at a time: after \(latestVersion) comes \(latestVersion + 1), "
        + "not \(version)."
    )
  }

  /// The stage of `version`, if the chain has it.
  func stageIndex(of version: Int) -> Int? {
    let index = version - oldestVersion
    return stages.indices.contains(index) ? index : nil
  }
}

/// One version of a format, with its model type erased behind decoding closures.
struct MigrationStage: Sendable {
  let version: Int
  /// Decodes the model from the `content` of an envelope, within the same decoding pass.
  let decodeContent: @Sendable (KeyedDecodingContainer<EnvelopeCodingKey>) throws -> any Sendable
  /// Decodes the model from a whole document (a legacy file without envelope).
  let decodeTopLevel: @Sendable (any Decoder) throws -> any Sendable
  /// Decodes the model from standalone JSON.
  let decodeJSON: @Sendable (Data) throws -> any Sendable
  /// Encodes a model value (which must be of this stage's type) to standalone JSON.
  let encodeJSON: @Sendable (any Sendable) throws -> Data

  init<Model: Codable & Sendable>(version: Int, model: Model.Type) {
    self.version = version
    decodeContent = { container in try container.decode(Model.self, forKey: .content) }
    decodeTopLevel = { decoder in try Model(from: decoder) }
    decodeJSON = { data in try JSONCoding.decode(Model.self, from: data) }
    encodeJSON = { value in
      guard let value = value as? Model else {
        preconditionFailure("Keepsake bug: version \(version) got \(type(of: value)).")
      }
      return try JSONCoding.encode(value)
    }
  }
}

/// How one version becomes the next.
enum MigrationStep: Sendable {
  /// Decode the old model, build the new one.
  case typed(@Sendable (any Sendable) throws -> any Sendable)
  /// Edit the content as JSON.
  case json(@Sendable (inout JSONValue) throws -> Void)

  var isTyped: Bool {
    if case .typed = self { return true }
    return false
  }
}
