import Foundation

/// The file the programs campaign's processes keep open and its programs work on, as the
/// programs and the checker see it: Foundation's JSON, read and written apart from the library.
///
/// Either a drafts file (the processes add drafts through the drafts key), or a preferences
/// suite (the processes set keys of their own through `.appStorage`). Either way the file holds
/// entries, each named once (a draft's body, a key), and a seed entry whose text the programs'
/// same-size edits change.
public enum ProgramsDocument: String, Sendable, CaseIterable {
  /// The drafts example's file, in the format's current version.
  case drafts
  /// A preferences suite: Keepsake's own file of `.appStorage` keys, the Linux default.
  case preferences

  /// The file's name.
  var fileName: String { self == .drafts ? "drafts.json" : "suite.json" }

  /// The file at the start: the seed entry and one more.
  func initialData() throws -> Data {
    switch self {
    case .drafts: return try Self.data([Self.draft("seedA"), Self.draft("first")])
    case .preferences:
      return try JSONSerialization.data(withJSONObject: [
        "seed": ["string": "seedA"], "first": ["int": 0],
      ])
    }
  }

  /// The names of the entries of a file, or nil when it cannot be read.
  func entries(in data: Data) -> [String]? {
    switch self {
    case .drafts: return Self.drafts(in: data)?.compactMap { $0["body"] as? String }
    case .preferences: return Self.suite(in: data).map { Array($0.keys) }
    }
  }

  /// The seed entry's text in a file.
  func seed(in data: Data) -> String? {
    switch self {
    case .drafts: return entries(in: data)?.first { $0.hasPrefix("seed") }
    case .preferences:
      return (Self.suite(in: data)?["seed"] as? [String: Any])?["string"] as? String
    }
  }

  /// The file with the entry `name` added, as a program writes it.
  func adding(_ name: String, to data: Data) -> Data? {
    switch self {
    case .drafts:
      guard var drafts = Self.drafts(in: data) else { return nil }
      drafts.append(Self.draft(name))
      return try? Self.data(drafts)
    case .preferences:
      guard var suite = Self.suite(in: data) else { return nil }
      suite[name] = ["int": 1]
      return try? JSONSerialization.data(withJSONObject: suite)
    }
  }

  // MARK: - Drafts

  /// A draft as the current format stores it.
  static func draft(_ body: String) -> [String: Any] {
    ["id": UUID().uuidString, "body": body, "pinned": false, "tags": [String]()]
  }

  /// A file of `drafts` in the current format version.
  static func data(_ drafts: [Any]) throws -> Data {
    try JSONSerialization.data(withJSONObject: ["content": drafts, "version": 3])
  }

  /// The drafts of a file, or nil when it is not a readable current-version file.
  static func drafts(in data: Data) -> [[String: Any]]? {
    guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      document["version"] as? Int == 3
    else { return nil }
    return document["content"] as? [[String: Any]]
  }

  // MARK: - Preferences

  /// The members of a suite, or nil when it is not a JSON object.
  static func suite(in data: Data) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: data) as? [String: Any]
  }

  /// The integer a suite stores for `key`, as `.appStorage` of an `Int` writes it.
  static func integer(_ key: String, in suite: [String: Any]) -> Int? {
    (suite[key] as? [String: Any])?["int"] as? Int
  }
}
