import Foundation
import Testing

@testable import Keepsake

@Suite("Versioned format")
struct VersionedFormatTests {
  typealias Items = TestFormats.Items
  let expected = [TestFormats.Item(title: "a", count: 1), TestFormats.Item(title: "b", count: 1)]

  @Test("Writing produces the current version in a sorted, compact envelope")
  func encodesEnvelope() throws {
    let data = try Items.encode([TestFormats.Item(title: "a", count: 2)])
    #expect(
      String(decoding: data, as: UTF8.self) == #"{"content":[{"count":2,"title":"a"}],"version":3}"#
    )
  }

  @Test("A current-version file round-trips")
  func roundTrip() throws {
    #expect(try Items.decode(Items.encode(expected)) == expected)
  }

  @Test("A legacy bare file runs the typed and the JSON step")
  func legacyFile() throws {
    #expect(try Items.decode(Data(#"[{"name":"a"},{"name":"b"}]"#.utf8)) == expected)
  }

  @Test("A legacy object without a version key is bare, too")
  func legacyObject() throws {
    enum Settings: VersionedFormat {
      struct Value: Codable, Equatable { var content: Int }
      static let currentVersion = 1
      static let legacyVersion: Int? = 1
    }
    #expect(try Settings.decode(Data(#"{"content":5}"#.utf8)) == Settings.Value(content: 5))
  }

  @Test("A version 2 file runs only the JSON step")
  func version2() throws {
    let data = Data(
      #"{"version":2,"content":[{"name":"a","count":1},{"name":"b","count":1}]}"#.utf8)
    #expect(try Items.decode(data) == expected)
  }

  @Test("A JSON step's failure names the step and the path")
  func jsonStepFailure() {
    let data = Data(
      #"{"version":2,"content":[{"name":"a","count":1},{"name":"b","count":1,"title":"x"}]}"#.utf8)
    #expect(
      throws: FormatError.migrationFailed(
        from: 2, to: 3, codingPath: "content[1]",
        reason: #"cannot rename "name" to "title": both keys exist"#)
    ) { try Items.decode(data) }
  }

  @Test("A typed step's failure names the step and the path")
  func typedStepFailure() {
    #expect(
      throws: FormatError.migrationFailed(
        from: 1, to: 2, codingPath: "name", reason: "a name is empty")
    ) { try Items.decode(Data(#"[{"name":""}]"#.utf8)) }
  }

  @Test("A step whose output does not fit the next model is blamed on the step")
  func brokenStep() {
    #expect(
      throws: FormatError.migrationFailed(
        from: 1, to: 2, codingPath: "content[0].count", reason: "the key is missing")
    ) { try TestFormats.BrokenStep.decode(Data(#"{"version":1,"content":[{"name":"a"}]}"#.utf8)) }
  }

  @Test(
    "Decoding failures and the files that cause them",
    arguments: [
      (
        #"{"version":3,"content":[{"title":"a","count":"2"}]}"#,
        FormatError.decodingFailed(
          version: 3, codingPath: "content[0].count",
          problem: .typeMismatch(expected: "Int", found: "a string"))
      ),
      (
        #"{"version":3,"content":[{"title":"a"}]}"#,
        FormatError.decodingFailed(version: 3, codingPath: "content[0].count", problem: .missingKey)
      ),
      (
        #"{"version":3,"content":[{"title":null,"count":1}]}"#,
        FormatError.decodingFailed(
          version: 3, codingPath: "content[0].title", problem: .missingValue(expected: "String"))
      ),
      (
        #"{"version":3,"content":{"title":"a"}}"#,
        FormatError.decodingFailed(
          version: 3, codingPath: "content",
          problem: .typeMismatch(expected: "an array", found: "an object"))
      ),
      (
        #"{"version":2,"content":[{"name":"a","count":true}]}"#,
        FormatError.decodingFailed(
          version: 2, codingPath: "content[0].count",
          problem: .typeMismatch(expected: "Int", found: "a bool"))
      ),
      (
        #"[{"name":5}]"#,
        FormatError.decodingFailed(
          version: 1, codingPath: "[0].name",
          problem: .typeMismatch(expected: "String", found: "a number"))
      ),
    ])
  func decodingFailures(json: String, expected: FormatError) {
    #expect(throws: expected) { try Items.decode(Data(json.utf8)) }
  }

  @Test(
    "Files that cannot be read at all",
    arguments: [
      ("", FormatError.notJSON(byteCount: 0, offset: 0, reason: "the document is empty")),
      (
        #"{"version":3,"content":[{"#,
        FormatError.notJSON(byteCount: 25, offset: 25, reason: "expected a string key")
      ),
      (
        #"{"version":"3","content":[]}"#,
        FormatError.invalidEnvelope(.versionNotAnInteger(found: "a string"))
      ),
      (
        #"{"version":2.5,"content":[]}"#,
        FormatError.invalidEnvelope(.versionNotAnInteger(found: "a number"))
      ),
      (#"{"version":0,"content":[]}"#, FormatError.invalidEnvelope(.versionNotPositive(0))),
      (#"{"version":-1,"content":[]}"#, FormatError.invalidEnvelope(.versionNotPositive(-1))),
      (#"{"version":3}"#, FormatError.invalidEnvelope(.missingContent)),
      (#"{"version":9,"content":[]}"#, FormatError.versionFromFuture(found: 9, supported: 3)),
    ])
  func unreadableFiles(json: String, expected: FormatError) {
    #expect(throws: expected) { try Items.decode(Data(json.utf8)) }
  }

  @Test("A bare file is an error when no legacy version is declared")
  func noLegacy() {
    #expect(throws: FormatError.missingLegacyVersion(topLevel: "an array")) {
      try TestFormats.NoLegacy.decode(Data("[]".utf8))
    }
  }

  @Test("A version older than the chain is refused")
  func tooOld() {
    #expect(throws: FormatError.versionTooOld(found: 1, oldest: 3)) {
      try TestFormats.Trimmed.decode(Data(#"{"version":1,"content":[]}"#.utf8))
    }
  }

  @Test(
    "version(of:) reports the envelope without decoding the content",
    arguments: [
      (#"{"version":3,"content":"anything"}"#, "format version 3 (envelope); current"),
      (
        #"{"version":2,"content":[]}"#,
        "format version 2 (envelope); will be migrated to version 3 when read"
      ),
      ("[]", "no envelope, read as legacy version 1; will be migrated to version 3 when read"),
      (
        #"{"version":4,"content":[]}"#,
        "format version 4 (envelope), newer than this app's 3; cannot be read and will be left untouched"
      ),
      (
        #"{"version":"x"}"#,
        #"unreadable: The file has an invalid version envelope: "version" is a string, not an integer. Keepsake left it untouched."#
      ),
    ])
  func versionInfo(json: String, description: String) {
    #expect(Items.version(of: Data(json.utf8)).description == description)
  }

  @Test("version(of:) exposes the version and whether a read migrates")
  func versionInfoFields() {
    let info = Items.version(of: Data("[]".utf8))
    #expect(info == FormatVersionInfo(layout: .bare, version: 1, currentVersion: 3, problem: nil))
    #expect(info.needsMigration)
  }
}
