import Foundation
import Keepsake

/// An element of the simulation's merging file: a name unique to whoever added it, so the checker
/// can follow every change by its id, and two fields any process may set (each value a name
/// unique to the edit that set it, so the checker follows every field's changes too).
struct SimulatedItem: Codable, Identifiable, Hashable, Sendable {
  var id: String
  var a: String?
  var b: String?

  /// The fields a process may set.
  static let fields = ["a", "b"]

  /// Sets `field` to `value`; returns what it held.
  mutating func set(_ field: String, to value: String) -> String? {
    defer { if field == "a" { a = value } else { b = value } }
    return field == "a" ? a : b
  }
}

/// The same element as an older version of the app knows it: without the field `b`.
///
/// A newer version added `b` without a new format version, as the format guide allows; the
/// older version's writes must keep what the newer version put there.
struct SimulatedOlderItem: Codable, Identifiable, Hashable, Sendable {
  var id: String
  var a: String?

  static let fields = ["a"]

  mutating func set(_ field: String, to value: String) -> String? {
    defer { a = value }
    return a
  }
}

/// The format of the simulation's non-merging file: version 1, a list of names.
///
/// `[String]` does not merge (its elements are not `Identifiable`), so a conflict on this file
/// keeps both versions: ours written, theirs as a conflict copy the app is told about.
nonisolated enum SimulatedNotesFormat: VersionedFormat {
  typealias Value = [String]
  static let currentVersion = 1
}

/// The files a simulation shares between its processes, in one folder of one in-memory disk.
enum SimulatedFile: Int, CaseIterable, Sendable {
  /// `[SimulatedItem]` as plain JSON: merges three ways.
  case items = 0
  /// `[String]` in a versioned envelope: keeps both on a conflict, and has a future version.
  case notes = 1

  static let folder = URL(fileURLWithPath: "/simulation")
  // NB: made once: Foundation builds and standardizes URLs with string work and, on Linux,
  // system calls, and every step of every schedule names a file.
  private static let urls = [
    folder.appendingPathComponent("items.json"), folder.appendingPathComponent("notes.json"),
  ]
  private static let paths = urls.map { $0.standardizedFileURL.path }

  var url: URL { Self.urls[rawValue] }

  var path: String { Self.paths[rawValue] }

  /// The letter of the file in a printed schedule.
  var letter: Character { self == .items ? "a" : "b" }

  init?(letter: Character) {
    switch letter {
    case "a": self = .items
    case "b": self = .notes
    default: return nil
    }
  }

  /// How often a reference of the simulation saves a changing value (virtual time).
  static let saveInterval: Duration = .milliseconds(20)

  /// The bytes an outside writer writes for `names`: the same shape as Keepsake's, with some
  /// spacing, as another program would write it; the items keep their `fields`, as an editor
  /// keeps what it does not change.
  func encode(
    _ names: [String], fields: [String: [String: String]] = [:], spaced: Bool = false
  ) -> Data {
    let quoted = names.map { "\"\($0)\"" }
    let separator = spaced ? ", " : ","
    switch self {
    case .items:
      let elements = zip(names, quoted).map { name, quoted in
        let members = (fields[name] ?? [:]).sorted { $0.key < $1.key }.map { "\"\($0)\":\"\($1)\"" }
        let id = spaced ? "\"id\": \(quoted)" : "\"id\":\(quoted)"
        return "{" + ([id] + members).joined(separator: separator) + "}"
      }
      return Data(("[" + elements.joined(separator: separator) + "]").utf8)
    case .notes:
      return Data(
        ("{\"content\":[" + quoted.joined(separator: separator) + "],\"version\":1}").utf8)
    }
  }

  /// The bytes of a version from the future, which this app must refuse (data-safety rule "A
  /// version from the future is refused, not guessed").
  func futureVersion(_ names: [String]) -> Data {
    let quoted = names.map { "\"\($0)\"" }.joined(separator: ",")
    switch self {
    case .items:
      // NB: the items file is plain JSON, with no version: another shape stands in for it.
      return Data("{\"version\":2,\"items\":[\(quoted)]}".utf8)
    case .notes:
      return Data("{\"content\":{\"titles\":[\(quoted)]},\"version\":2}".utf8)
    }
  }
}

/// The two keys a simulated process opens, over its own storage context.
enum SimulatedKeys {
  static func items() -> FileStorageKey<[SimulatedItem]> {
    .fileStorage(SimulatedFile.items.url, saveInterval: SimulatedFile.saveInterval)
  }

  /// The items file as the older version of the app reads it.
  static func olderItems() -> FileStorageKey<[SimulatedOlderItem]> {
    .fileStorage(SimulatedFile.items.url, saveInterval: SimulatedFile.saveInterval)
  }

  static func notes() -> FileStorageKey<[String]> {
    .fileStorage(
      SimulatedFile.notes.url, format: SimulatedNotesFormat.self,
      saveInterval: SimulatedFile.saveInterval)
  }
}
