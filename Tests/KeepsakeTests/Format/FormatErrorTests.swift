import Foundation
import Keepsake
import Testing

@Suite("Format error messages")
struct FormatErrorTests {
  @Test(
    "Every error says what happened and that the file is untouched, in words for people",
    arguments: [
      (
        FormatError.versionFromFuture(found: 4, supported: 3),
        "The file was written by a newer version of the app (format version 4; this version reads up "
          + "to 3). It has been left untouched: update the app to read it."
      ),
      (
        FormatError.decodingFailed(
          version: 2, codingPath: "content[3].pinned",
          problem: .typeMismatch(expected: "Bool", found: "a string")),
        "The file could not be decoded as format version 2 at content[3].pinned: expected Bool but "
          + "found a string. Keepsake left it untouched."
      ),
      (
        FormatError.decodingFailed(version: 3, codingPath: "content[0].id", problem: .missingKey),
        "The file could not be decoded as format version 3 at content[0].id: the key is missing. "
          + "Keepsake left it untouched."
      ),
      (
        FormatError.decodingFailed(
          version: 3, codingPath: "content",
          problem: .typeMismatch(expected: "an array", found: nil)),
        "The file could not be decoded as format version 3 at content: expected an array (type "
          + "mismatch). Keepsake left it untouched."
      ),
      (
        FormatError.decodingFailed(
          version: 1, codingPath: "[2].text", problem: .missingValue(expected: "String")),
        "The file could not be decoded as format version 1 at [2].text: expected String but found "
          + "null. Keepsake left it untouched."
      ),
      (
        FormatError.decodingFailed(
          version: 1, codingPath: "[0].id", problem: .invalidValue("not a UUID")),
        "The file could not be decoded as format version 1 at [0].id: the value is not valid. "
          + "Keepsake left it untouched."
      ),
      (
        FormatError.migrationFailed(
          from: 2, to: 3, codingPath: "content[3].text", reason: "expected a string"),
        "Migration 2→3 failed at content[3].text: expected a string. Keepsake left the file "
          + "untouched (still version 2)."
      ),
      (
        FormatError.invalidEnvelope(.versionNotAnInteger(found: "a string")),
        #"The file has an invalid version envelope: "version" is a string, not an integer. "#
          + "Keepsake left it untouched."
      ),
      (
        FormatError.invalidEnvelope(.versionNotPositive(0)),
        #"The file has an invalid version envelope: "version" is 0; versions start at 1. "#
          + "Keepsake left it untouched."
      ),
      (
        FormatError.invalidEnvelope(.missingContent),
        #"The file has an invalid version envelope: it has a "version" but no "content". "#
          + "Keepsake left it untouched."
      ),
      (
        FormatError.notJSON(byteCount: 0, offset: 0, reason: "the document is empty"),
        "The file is not JSON (0 bytes; the document is empty at byte 0): it may be empty, "
          + "truncated or in another format. Keepsake left it untouched."
      ),
      (
        FormatError.missingLegacyVersion(topLevel: "an array"),
        "The file has no version envelope (its top level is an array), so this version of the app "
          + "cannot tell which version wrote it. Keepsake left it untouched."
      ),
      (
        FormatError.versionTooOld(found: 1, oldest: 3),
        "The file has format version 1, older than the oldest version this app can read (3). "
          + "Keepsake left it untouched."
      ),
    ])
  func descriptions(error: FormatError, description: String) {
    #expect(error.description == description)
    #expect(!error.description.contains("legacyVersion"), "no API name in words for people")
  }

  @Test(
    "What a developer can change is in debugDescription only",
    arguments: [
      (
        FormatError.decodingFailed(version: 3, codingPath: "content[0].id", problem: .missingKey),
        "If this app wrote it, the model changed without a version bump: restore the old shape or "
          + "add a migration."
      ),
      (
        FormatError.migrationFailed(from: 2, to: 3, codingPath: "content", reason: "bad"),
        "Fix the migration step and add a fixture that reproduces this file."
      ),
      (
        FormatError.invalidEnvelope(.missingContent),
        #"An envelope is {"version": <integer from 1>, "content": <JSON>}."#
      ),
      (
        FormatError.missingLegacyVersion(topLevel: "an array"),
        "If earlier versions of the app wrote unversioned files, declare legacyVersion."
      ),
      (
        FormatError.versionTooOld(found: 1, oldest: 3),
        "Add the missing versions to the format's migrations."
      ),
    ])
  func developerAdvice(error: FormatError, advice: String) {
    #expect(error.debugDescription == error.description + " " + advice)
  }

  @Test("Paths are rendered the way they are written in Swift")
  func pathRendering() {
    let data = Data(
      #"{"version":3,"content":[{"title":"a","count":1},{"title":"b","count":[]}]}"#.utf8)
    #expect(
      throws: FormatError.decodingFailed(
        version: 3, codingPath: "content[1].count",
        problem: .typeMismatch(expected: "Int", found: "an array"))
    ) {
      try TestFormats.Items.decode(data)
    }
  }

  @Test("Keys that are not identifiers are quoted in paths")
  func quotedKeys() {
    struct Odd: Codable, Sendable { var value: [String: Int] }
    enum OddFormat: VersionedFormat {
      typealias Value = Odd
      static let currentVersion = 1
    }
    let data = Data(#"{"version":1,"content":{"value":{"first name":"x"}}}"#.utf8)
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: #"content.value["first name"]"#,
        problem: .typeMismatch(expected: "Int", found: "a string"))
    ) {
      try OddFormat.decode(data)
    }
  }
}
