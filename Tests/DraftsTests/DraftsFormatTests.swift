import DraftsFeature
import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

@Suite("Drafts format history")
struct DraftsFormatTests {
  /// A golden fixture and the value it must decode to.
  struct Fixture: CustomTestStringConvertible, Sendable {
    var name: String
    var version: Int
    var expected: [Draft]
    var testDescription: String { "\(name).json" }
  }

  static let fixtures: [Fixture] = [
    Fixture(name: "drafts-v1", version: 1, expected: FixtureExpectations.v1),
    Fixture(
      name: "drafts-legacy-prerelease", version: 1, expected: FixtureExpectations.legacyPrerelease),
    Fixture(name: "drafts-v2", version: 2, expected: FixtureExpectations.v2),
    Fixture(name: "drafts-v3", version: 3, expected: FixtureExpectations.v3),
  ]

  static func data(of name: String) throws -> Data {
    let url = try #require(
      Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
      "Fixture \(name).json is missing from the test bundle."
    )
    return try Data(contentsOf: url)
  }

  @Test("Every golden fixture reads through today's migration chain")
  func everyGoldenFixtureReads() throws {
    let fixtures = try #require(FormatFixtures.bundledFolder(in: .module))
    FormatFixtures.expectAllReadable(DraftsFormat.self, name: "drafts", in: fixtures)
  }

  @Test("Every historical file still reads as the expected drafts", arguments: fixtures)
  func everyFixtureDecodes(fixture: Fixture) throws {
    let drafts = try DraftsFormat.decode(Self.data(of: fixture.name))
    #expect(drafts == fixture.expected)
  }

  @Test("Each fixture is the version it claims to be", arguments: fixtures)
  func fixtureVersions(fixture: Fixture) throws {
    let info = DraftsFormat.version(of: try Self.data(of: fixture.name))
    #expect(info.version == fixture.version)
    #expect(info.problem == nil)
    #expect(info.needsMigration == (fixture.version < 3))
  }

  @Test("The fixtures cover the cases that break encoders")
  func fixturesAreRealistic() {
    let all = Self.fixtures.flatMap(\.expected)
    #expect(all.contains { $0.body.count > 1_000 })
    #expect(all.contains { $0.body.unicodeScalars.contains("\u{200D}") })  // an emoji ZWJ sequence
    #expect(
      all.contains { $0.body.unicodeScalars.contains { (0x0590...0x06FF).contains($0.value) } })
    #expect(
      all.contains { $0.body.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) } })
    #expect(all.contains(where: \.pinned) && all.contains { !$0.pinned })
    #expect(FixtureExpectations.v3.contains { $0.tags.isEmpty })
    #expect(FixtureExpectations.v3.contains { $0.tags.count > 1 })
  }

  @Test("Writing always produces version 3 with sorted keys")
  func encodesCurrentVersion() throws {
    let draft = Draft(
      id: FixtureExpectations.id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01"), body: "Hola", tags: ["a"])
    let text = String(decoding: try DraftsFormat.encode([draft]), as: UTF8.self)
    #expect(
      text
        == #"{"content":[{"body":"Hola","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01","pinned":false,"tags":["a"]}],"version":3}"#
    )
  }

  @Test("A migrated file round-trips as version 3", arguments: fixtures)
  func roundTrip(fixture: Fixture) throws {
    let drafts = try DraftsFormat.decode(Self.data(of: fixture.name))
    let rewritten = try DraftsFormat.encode(drafts)
    #expect(DraftsFormat.version(of: rewritten).version == 3)
    #expect(try DraftsFormat.decode(rewritten) == fixture.expected)
  }

  @Test("A file from version 4 is refused, not guessed")
  func refusesTheFuture() {
    let data = Data(#"{"version": 4, "content": {"drafts": []}}"#.utf8)
    #expect(throws: FormatError.versionFromFuture(found: 4, supported: 3)) {
      try DraftsFormat.decode(data)
    }
    #expect(
      DraftsFormat.version(of: data).description
        == "format version 4 (envelope), newer than this app's 3; cannot be read and will be left untouched"
    )
  }

  @Test("A bad value deep in version 2 content names its path")
  func deepFailureInVersion2() {
    let data = Data(
      """
      {"version": 2, "content": [
        {"id": "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E01", "text": "a", "pinned": true},
        {"id": "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E02", "text": "b", "pinned": "yes"}
      ]}
      """.utf8)
    let expected = FormatError.decodingFailed(
      version: 2, codingPath: "content[1].pinned",
      problem: .typeMismatch(expected: "Bool", found: "a string"))
    #expect(throws: expected) { try DraftsFormat.decode(data) }
    #expect(
      expected.description
        == "The file could not be decoded as format version 2 at content[1].pinned: expected Bool "
        + "but found a string. Keepsake left it untouched.")
  }

  @Test("A version 2 draft without text is blamed on the file, not on the migration")
  func missingKeyInVersion2() {
    let data = Data(
      #"{"version":2,"content":[{"id":"5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E01","pinned":true}]}"#.utf8
    )
    #expect(
      throws: FormatError.decodingFailed(
        version: 2, codingPath: "content[0].text", problem: .missingKey)
    ) {
      try DraftsFormat.decode(data)
    }
  }

  @Test("A bad value in a legacy file names its path from the top level")
  func legacyFailure() {
    let data = Data(#"[{"id":"not-a-uuid","text":"a"}]"#.utf8)
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: "[0].id",
        problem: .invalidValue("Attempted to decode UUID from invalid UUID string."))
    ) {
      try DraftsFormat.decode(data)
    }
  }

  @Test("Unknown keys are ignored at every version")
  func unknownKeysAreIgnored() throws {
    let v3 =
      #"{"content":[{"body":"x","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01","new":1,"pinned":false,"tags":[]}],"extra":{},"version":3}"#
    #expect(try DraftsFormat.decode(Data(v3.utf8)).map(\.body) == ["x"])
  }
}
