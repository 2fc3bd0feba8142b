import Foundation

/// The file an unsaved change is kept in.
///
/// The change and its base are the bytes the program would have written, as text when they are
/// UTF-8 (JSON, readable by a person) and in Base64 otherwise.
struct UnsavedChange: Codable, Sendable {
  /// What the file is, for a person who opens it.
  var about = "A change Keepsake could not save into its file; merged into it when it can be."
  var reason: String
  /// The path of the file it is a change to, when it is kept away from it, in the state folder
  /// (its folder was gone): its name tells only the file's name.
  var file: String?
  var change: String?
  var changeBase64: String?
  var base: String?
  var baseBase64: String?
  /// The values of the earlier kept changes this one took the place of, oldest first (at most
  /// ``stepLimit``): merged in turn before the change, since another device may have merged one
  /// of them before its removal reached this one.
  var steps: [Text]?

  /// The most earlier values a kept change holds.
  static let stepLimit = 8

  /// Bytes as text when they are UTF-8 (JSON, readable by a person), else in Base64.
  struct Text: Codable, Sendable {
    var text: String?
    var base64: String?

    init(_ data: Data) {
      if let text = String(data: data, encoding: .utf8) {
        self.text = text
      } else {
        base64 = data.base64EncodedString()
      }
    }

    init(text: String?, base64: String?) {
      self.text = text
      self.base64 = base64
    }

    /// The bytes, or `nil` when there are none (or the Base64 is damaged).
    var bytes: Data? {
      if let text { return Data(text.utf8) }
      return base64.flatMap { Data(base64Encoded: $0) }
    }
  }

  init(reason: String, change: Data, base: Data?) {
    self.reason = reason
    let change = Text(change)
    (self.change, changeBase64) = (change.text, change.base64)
    if let base = base.map(Text.init) { (self.base, baseBase64) = (base.text, base.base64) }
  }

  var changeData: Data {
    get throws {
      guard let data = Text(text: change, base64: changeBase64).bytes else {
        throw FormatError.notJSON(byteCount: 0, offset: 0, reason: "no change in the kept file")
      }
      return data
    }
  }

  var baseData: Data? { Text(text: base, base64: baseBase64).bytes }

  /// Where a change is kept when its file's folder is gone: `unsaved` in the per-device state
  /// folder, or, for isolated storage (tests, previews), in a folder of the system's temporary
  /// folder, so a test never writes the user's state.
  static func awayFolder(in context: StorageContext) -> URL {
    let root =
      context.isIsolated
      ? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("keepsake-state-\(getuid())", isDirectory: true)
      : BaseStore.defaultRoot(environment: ProcessInfo.processInfo.environment)
    return root.appendingPathComponent("unsaved", isDirectory: true)
  }

  /// The file the change at `url` was kept away from, when `url` is in the folder such changes
  /// are kept in (see ``awayFolder(in:)``); `nil` elsewhere, or when it cannot be read.
  ///
  /// NB: only there: a path a file names is where a restore writes, and the folder beside a
  /// file may be one that other people write (see "Folders other users can write").
  static func original(ofKeptAway url: URL, in context: StorageContext, maximumSize: Int) -> URL? {
    keptAway(at: url, in: context, maximumSize: maximumSize)?.file
  }

  /// The change kept away from its file at `url`: the file it names and its bytes, read once;
  /// `nil` where ``original(ofKeptAway:in:maximumSize:)`` is.
  static func keptAway(
    at url: URL, in context: StorageContext, maximumSize: Int
  ) -> (file: URL, data: Data)? {
    let away = awayFolder(in: context).standardizedFileURL.path
    guard url.deletingLastPathComponent().standardizedFileURL.path == away,
      let data = try? context.fileSystem.contents(of: url, maximumSize: maximumSize),
      let path = try? decoder.decode(UnsavedChange.self, from: data).file, path.hasPrefix("/")
    else { return nil }
    return (URL(fileURLWithPath: path), data)
  }

  static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return encoder
  }

  static var decoder: JSONDecoder { JSONDecoder() }
}
