/// The stored format of a value: its current version, its history, and how to migrate each old
/// version to the next.
///
/// A file written through a format is an envelope, `{"content": <JSON>, "version": N}`, whose
/// content is the value's own readable JSON. Reading starts from the file's version and runs
/// every migration step up to ``currentVersion``; writing always writes ``currentVersion``.
///
/// The format guarantees, for the user's data:
/// - Reading never changes the file. Every failure is a ``FormatError`` that names the version,
///   the path in the file and what to do.
/// - A file from a newer app is refused with ``FormatError/versionFromFuture(found:supported:)``,
///   never guessed at or defaulted.
/// - Unknown keys are ignored by synthesized `Decodable`, so a field a later version added is
///   not an error for an older model.
///
/// For example, a list of drafts whose `text` became `body` in version 2:
///
/// ```swift
/// nonisolated enum DraftsFormat: VersionedFormat {
///   static let currentVersion = 2
///   static let legacyVersion: Int? = 1  // before the envelope, files were a bare array
///   static let migrations = MigrationChain
///     .starting(at: 1, with: [DraftV1].self)
///     .migratingJSON(to: 2, as: [Draft].self) { content in
///       try content.updateElements { draft in try draft.renameKey("text", to: "body") }
///     }
/// }
///
/// let drafts = try DraftsFormat.decode(data)  // [Draft], from version 1 or 2
/// let bytes = try DraftsFormat.encode(drafts)  // always version 2
/// ```
///
/// A format with no history yet needs only ``currentVersion``:
///
/// ```swift
/// nonisolated enum SettingsFormat: VersionedFormat {
///   typealias Value = Settings
///   static let currentVersion = 1
/// }
/// ```
///
/// > Important: Once a version has shipped, its model and its migration step are a contract with
/// > files already on users' devices: never edit them. Change the model by adding a version (see
/// > "Changing a model safely"), record a golden fixture for it, and keep the fixtures of every
/// > older version passing.
///
/// Conforming types are nonisolated: a module built with default `MainActor` isolation should
/// declare its format and the models it stores `nonisolated`, so they can be decoded off the
/// main actor.
public protocol VersionedFormat: Sendable {
  /// The value stored in the file's content at the current version.
  associatedtype Value: Codable & Sendable

  /// The version every write produces. Versions start at 1 and grow by one per change.
  static var currentVersion: Int { get }

  /// Every version this app can read, its model, and the step from each version to the next.
  ///
  /// The chain must end at ``currentVersion`` with ``Value``. The default is a chain with only the
  /// current version, for a format without history.
  static var migrations: MigrationChain<Value> { get }

  /// The version to read a file as when it has no envelope, because earlier versions of the app
  /// wrote the bare value; `nil` (the default) makes such a file an error.
  ///
  /// A file has no envelope when its top level is not an object with a `"version"` key.
  static var legacyVersion: Int? { get }
}

extension VersionedFormat {
  /// A chain with only ``currentVersion``, for a format without history.
  public static var migrations: MigrationChain<Value> {
    .starting(at: currentVersion, with: Value.self)
  }

  /// No legacy version: a file without an envelope is refused.
  public static var legacyVersion: Int? { nil }
}
