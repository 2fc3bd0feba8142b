import Foundation
import Keepsake

/// The drift check: fails when a format's encoded shape changes while its version does not.
///
/// Adding, removing, renaming or retyping a stored property changes what the app writes. Without
/// a version bump, files already on devices no longer match the model, and the failure only shows
/// up on users' devices. The check encodes a sample value with the current version, takes its
/// ``JSONShape`` and compares it with the shape recorded for that version in the fixtures folder
/// (`<name>-v<N>.shape.json`).
///
/// ```swift
/// @Test func draftsFormatDidNotDrift() {
///   FormatDrift.expectNoDrift(DraftsFormat.self, sample: .sample, name: "drafts", in: fixtures)
/// }
/// ```
///
/// Use a sample in which every optional is set and every collection has an element, so their
/// shapes are recorded. To record a new version run ``FormatRecordMode/command``.
public enum FormatDrift {
  /// The shape of `value` as `Format` writes it now (envelope included).
  public static func shape<Format: VersionedFormat>(
    of value: Format.Value,
    as format: Format.Type
  ) throws -> JSONShape {
    JSONShape(of: try JSONValue(parsing: Format.encode(value)))
  }

  /// Compares shapes in memory: `recorded` is the shape stored for `version`, or `nil` if none.
  public static func compare(recorded: JSONShape?, current: JSONShape, version: Int)
    -> FormatDriftResult
  {
    guard let recorded else { return .notRecorded(version: version) }
    let changes = ShapeChange.changes(from: recorded, to: current)
    return changes.isEmpty
      ? .unchanged(version: version) : .changed(version: version, changes: changes)
  }

  /// The shape file of `name` at `version` in `directory`.
  public static func shapeURL(name: String, version: Int, in directory: URL) -> URL {
    directory.appending(path: "\(name)-v\(version).shape.json")
  }

  /// Checks (or, in record mode, records) `Format`'s current shape against the files in `directory`.
  ///
  /// - Throws: Errors encoding the sample or reading and writing files; a missing shape file is
  ///   a ``FormatDriftResult/notRecorded(version:)`` result, not an error.
  public static func check<Format: VersionedFormat>(
    _ format: Format.Type,
    sample: Format.Value,
    name: String,
    in directory: URL,
    record: Bool = FormatRecordMode.isOn
  ) throws -> FormatDriftResult {
    let version = Format.currentVersion
    let current = try shape(of: sample, as: format)
    let url = shapeURL(name: name, version: version, in: directory)
    if record {
      return .recorded(
        version: version,
        files: try write(current, of: format, sample: sample, name: name, to: directory))
    }
    guard let data = try? Data(contentsOf: url) else { return .notRecorded(version: version) }
    let stored = try JSONValue(parsing: data)
    guard let recorded = stored["shape"].flatMap(JSONShape.init(json:)) else {
      throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
    }
    return compare(recorded: recorded, current: current, version: version)
  }

  private static func write<Format: VersionedFormat>(
    _ shape: JSONShape,
    of format: Format.Type,
    sample: Format.Value,
    name: String,
    to directory: URL
  ) throws -> [String] {
    let version = Format.currentVersion
    let shapeURL = shapeURL(name: name, version: version, in: directory)
    let document: JSONValue = ["formatVersion": .int(version), "shape": shape.json]
    try document.jsonData(prettyPrinted: true).write(to: shapeURL, options: .atomic)
    var written = [shapeURL.lastPathComponent]
    // NB: A fixture, once written, is a file "already on users' devices": never overwrite it.
    let fixture = "\(name)-v\(version).json"
    let fixtureURL = directory.appending(path: fixture)
    if !FileManager.default.fileExists(atPath: fixtureURL.path) {
      try Format.encode(sample).write(to: fixtureURL, options: .withoutOverwriting)
      try FixtureLock.appendIfMissing(fixtureNamed: fixture, in: directory)
      written += [fixture, FixtureLock.fileName]
    }
    return written
  }
}
