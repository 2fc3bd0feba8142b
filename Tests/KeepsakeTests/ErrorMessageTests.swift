import Foundation
import Testing

@testable import Keepsake

/// The text of the errors a key reports, pinned exactly: the text is what an app logs and shows.
@Suite("Error messages")
struct ErrorMessageTests {
  /// A coding key as decoders make them; `index` gives an array position (`Index 3`).
  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(index: Int) {
      stringValue = "Index \(index)"
      intValue = index
    }
  }

  static let drafts = SharedKeyID(kind: "file", name: "/data/drafts.json")
  static let url = URL(fileURLWithPath: "/data/drafts.json")
  static let whatToDo =
    " Restore it from a backup, or start over: the unreadable file is then kept as a copy beside "
    + "it."
  static let untouched =
    " It has been left untouched, and changes are not saved over it."

  @Test(
    "A load error names the file, the coding path and what to do, never the stored value",
    arguments: [
      (
        DecodingError.keyNotFound(
          Key(stringValue: "theme"),
          .init(codingPath: [Key(stringValue: "settings")], debugDescription: "No value")),
        "The file /data/drafts.json could not be read: the key is missing at settings.theme."
          + untouched + whatToDo
      ),
      (
        DecodingError.typeMismatch(
          Int.self,
          .init(
            codingPath: [Key(stringValue: "items"), Key(index: 2), Key(stringValue: "count")],
            debugDescription: "Expected Int but found the string \"Alice\" instead.")),
        "The file /data/drafts.json could not be read: expected Int (type mismatch) at "
          + "items[2].count." + untouched + whatToDo
      ),
      (
        DecodingError.valueNotFound(
          String.self, .init(codingPath: [Key(index: 0)], debugDescription: "null")),
        "The file /data/drafts.json could not be read: expected String but found null at [0]."
          + untouched + whatToDo
      ),
      (
        DecodingError.dataCorrupted(
          .init(
            codingPath: [Key(stringValue: "first name")],
            debugDescription: "Cannot initialize Theme from invalid String value Alice")),
        #"The file /data/drafts.json could not be read: the value is not valid at ["first name"]."#
          + untouched + whatToDo
      ),
      (
        FileSystemError(.read, path: "/data/drafts.json", reason: .permissionDenied),
        "The file /data/drafts.json could not be read: Could not read /data/drafts.json: "
          + "permission denied; nothing was changed: allow this user to read the file and its "
          + "folder." + untouched + whatToDo
      ),
      // Errors that already say the data was left untouched are not followed by a second time.
      (
        FileSystemError(.read, path: "/data/drafts.json", reason: .linkLoop),
        "The file /data/drafts.json could not be read: Could not read /data/drafts.json: the path "
          + "is a loop of symbolic links that never reaches a file, so nothing was read and the "
          + "links were left untouched; fix or remove one of them." + whatToDo
      ),
      (
        FormatError.versionFromFuture(found: 4, supported: 3),
        "The file /data/drafts.json could not be read: The file was written by a newer version "
          + "of the app (format version 4; this version reads up to 3). It has been left "
          + "untouched: update the app to read it."
      ),
    ] as [(any Error & Sendable, String)])
  func loadErrors(underlying: any Error & Sendable, description: String) {
    let error = SharedLoadError(keyID: Self.drafts, url: Self.url, underlying: underlying)
    #expect(error.description == description)
  }

  @Test("A file from a newer version is never called damaged, and no message names an API")
  func newerVersionIsNotDamaged() {
    let error = SharedLoadError(
      keyID: Self.drafts, url: Self.url,
      underlying: FormatError.versionFromFuture(found: 4, supported: 3))
    #expect(!error.description.contains("damaged"))
    #expect(!error.description.contains("start over"))
    #expect(!error.description.contains("()"))
    #expect(!error.debugDescription.contains("replaceUnreadableData"))
  }

  @Test("A load error without a file names the key's identity")
  func loadErrorWithoutFile() {
    let error = SharedLoadError(
      keyID: SharedKeyID(kind: "appStorage", name: "theme"),
      underlying: DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "")))
    #expect(
      error.description
        == "The stored value of appStorage(theme) could not be read: the value is not valid at "
        + "the top level." + Self.untouched + Self.whatToDo)
  }

  @Test(
    "The decoder's detail, which may quote the stored value, is only in debugDescription",
    arguments: [
      (
        DecodingError.dataCorrupted(
          .init(
            codingPath: [Key(stringValue: "theme")],
            debugDescription: "Cannot initialize Theme from invalid String value Alice")),
        "Cannot initialize Theme from invalid String value Alice"
      ),
      (
        DecodingError.typeMismatch(
          Int.self,
          .init(codingPath: [], debugDescription: "Expected Int, found \"Alice's diary\"")),
        "Expected Int, found \"Alice's diary\""
      ),
    ])
  func detailOnlyInDebugDescription(underlying: DecodingError, detail: String) {
    let error = SharedLoadError(keyID: Self.drafts, url: Self.url, underlying: underlying)
    #expect(!error.description.contains("Alice"))
    #expect(
      error.debugDescription
        == error.description + " To start over, an app calls replaceUnreadableData(), which "
        + "keeps the file as a copy. Underlying error: " + detail)
  }

  @Test(
    "Format errors keep an invalid value's detail out of the description",
    arguments: [
      (
        FormatError.decodingFailed(
          version: 2, codingPath: "content[0].id",
          problem: .invalidValue("Attempted to decode UUID from invalid UUID string 'Alice'")),
        "The file could not be decoded as format version 2 at content[0].id: the value is not "
          + "valid. Keepsake left it untouched.",
        "The file could not be decoded as format version 2 at content[0].id: the value is not "
          + "valid (Attempted to decode UUID from invalid UUID string 'Alice'). Keepsake left it "
          + "untouched. If this app wrote it, the model changed without a version bump: restore "
          + "the old shape or add a migration."
      ),
      (
        FormatError.decodingFailed(version: 1, codingPath: "content", problem: .missingKey),
        "The file could not be decoded as format version 1 at content: the key is missing. "
          + "Keepsake left it untouched.",
        "The file could not be decoded as format version 1 at content: the key is missing. "
          + "Keepsake left it untouched. If this app wrote it, the model changed without a "
          + "version bump: restore the old shape or add a migration."
      ),
    ])
  func formatErrorDetail(error: FormatError, description: String, debugDescription: String) {
    #expect(error.description == description)
    #expect(error.debugDescription == debugDescription)
  }

  @Test(
    "A preference of another type names its type, and only debugDescription its value",
    arguments: [
      (PreferenceValue.string("Alice"), "a string", #"string("Alice")"#),
      (PreferenceValue.int(42), "an integer", "int(42)"),
      (PreferenceValue.strings(["Alice"]), "an array of strings", #"strings(["Alice"])"#),
    ])
  func appStorageErrors(stored: PreferenceValue, type: String, value: String) {
    let error = AppStorageError.unexpectedType(key: "theme", stored: stored)
    let description = "the preference 'theme' holds \(type), which is not of the expected type."
    #expect(error.description == description)
    #expect(error.debugDescription == description + " Stored value: " + value)
  }

  @Test("Save errors say what was kept")
  func saveErrors() {
    let write = SharedSaveError.writeFailed(
      keyID: Self.drafts,
      underlying: FileSystemError(.write, path: "/data/drafts.json", reason: .diskFull))
    #expect(
      write.description
        == "Could not save file(/data/drafts.json): Could not write /data/drafts.json: the disk "
        + "is full; the file is as it was: free some space and save again. The previously saved "
        + "data is intact; the change is kept in memory and saved again on the next change or "
        + "flush.")
    let load = SharedLoadError(
      keyID: Self.drafts, url: Self.url,
      underlying: FormatError.versionFromFuture(found: 4, supported: 3))
    #expect(
      SharedSaveError.protected(load).description
        == "Not saved, to protect data that could not be read. \(load.description)")
  }

  @Test("Coding paths render one way, from components or from coding keys")
  func codingPaths() {
    #expect(JSONPathComponent.render([]) == "the top level")
    #expect(JSONPathComponent.render([.index(3), .key("pinned")]) == "[3].pinned")
    #expect(JSONPathComponent.render([.key("a b"), .key("c")]) == #"["a b"].c"#)
    #expect(
      JSONPathComponent.render(codingPath: [Key(stringValue: "tracks"), Key(index: 0)])
        == "tracks[0]")
  }
}
