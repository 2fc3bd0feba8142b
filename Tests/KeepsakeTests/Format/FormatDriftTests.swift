import Foundation
import Keepsake
import KeepsakeTesting
import Testing

@Suite("Format drift check")
struct FormatDriftTests {
  struct NoteV1: Codable, Sendable {
    var id: Int
    var text: String
  }

  /// Version 1 with a new non-optional field and no version bump.
  struct NoteAddedField: Codable, Sendable {
    var id: Int
    var text: String
    var pinned: Bool
  }

  /// Version 1 with `text` renamed and no version bump.
  struct NoteRenamed: Codable, Sendable {
    var id: Int
    var body: String
  }

  enum V1: VersionedFormat {
    typealias Value = [NoteV1]
    static let currentVersion = 1
  }

  enum AddedField: VersionedFormat {
    typealias Value = [NoteAddedField]
    static let currentVersion = 1
  }

  enum Renamed: VersionedFormat {
    typealias Value = [NoteRenamed]
    static let currentVersion = 1
  }

  /// The rename done right: version 2 with a migration.
  enum RenamedV2: VersionedFormat {
    static let currentVersion = 2
    static let migrations =
      MigrationChain
      .starting(at: 1, with: [NoteV1].self)
      .migratingJSON(to: 2, as: [NoteRenamed].self) { content in
        try content.updateElements { try $0.renameKey("text", to: "body") }
      }
  }

  let recordedV1: JSONShape

  init() throws {
    recordedV1 = try FormatDrift.shape(of: [NoteV1(id: 1, text: "a")], as: V1.self)
  }

  @Test("The recorded shape reads like the JSON it describes")
  func shapeJSON() {
    #expect(
      String(decoding: recordedV1.json.jsonData(), as: UTF8.self)
        == #"{"content":[{"id":"number","text":"string"}],"version":"number"}"#)
    #expect(JSONShape(json: recordedV1.json) == recordedV1)
  }

  @Test("An unchanged model passes")
  func unchanged() throws {
    let current = try FormatDrift.shape(of: [NoteV1(id: 2, text: "other values")], as: V1.self)
    #expect(
      FormatDrift.compare(recorded: recordedV1, current: current, version: 1)
        == .unchanged(version: 1))
  }

  @Test("A new non-optional field without a version bump fails and says what to do")
  func addedFieldFails() throws {
    let current = try FormatDrift.shape(
      of: [NoteAddedField(id: 1, text: "a", pinned: true)], as: AddedField.self)
    let result = FormatDrift.compare(recorded: recordedV1, current: current, version: 1)
    #expect(
      result == .changed(version: 1, changes: [.added(path: "content[].pinned", shape: .bool)]))
    #expect(
      result.failureMessage == """
        The stored format changed but currentVersion is still 1:
          - added key `pinned` of type bool at `content[].pinned`
        Files already written as version 1 have the old shape. Either:
          - bump currentVersion, add a migration from version 1, and record the new version with \
        KEEPSAKE_RECORD_FORMAT=1 swift test --filter Drift; or
          - if old files still decode unchanged (the new field is optional or @Defaulted, and \
        nothing was removed, renamed or retyped), re-record version 1's shape with the same command.
        """)
  }

  @Test("A rename without a version bump shows as a removed and an added key")
  func renameFails() throws {
    let current = try FormatDrift.shape(of: [NoteRenamed(id: 1, body: "a")], as: Renamed.self)
    let result = FormatDrift.compare(recorded: recordedV1, current: current, version: 1)
    #expect(
      result.failureMessage?.contains(
        """
          - added key `body` of type string at `content[].body`
          - removed key `text` (was string) at `content[].text`
        """) == true)
  }

  @Test("A type change names the old and new types")
  func typeChange() {
    let old: JSONShape = .object(["id": .number])
    let new: JSONShape = .object(["id": .string])
    #expect(
      ShapeChange.changes(from: old, to: new).map(\.description) == [
        "type changed at `id`: number → string"
      ])
  }

  @Test("A version bump without a recorded shape fails and says how to record it")
  func bumpWithoutRecording() throws {
    let current = try FormatDrift.shape(of: [NoteRenamed(id: 1, body: "a")], as: RenamedV2.self)
    let result = FormatDrift.compare(recorded: nil, current: current, version: 2)
    #expect(result == .notRecorded(version: 2))
    #expect(
      result.failureMessage?.contains("KEEPSAKE_RECORD_FORMAT=1 swift test --filter Drift") == true)
  }

  @Test("A version bump with its recorded shape (and fixture) passes")
  func bumpWithRecording() throws {
    let folder = try TemporaryFolder()
    let directory = folder.url
    let sample = [NoteRenamed(id: 1, body: "a")]

    #expect(
      try FormatDrift.check(
        RenamedV2.self, sample: sample, name: "notes", in: directory, record: false)
        == .notRecorded(version: 2))
    let recorded = try FormatDrift.check(
      RenamedV2.self, sample: sample, name: "notes", in: directory, record: true)
    #expect(
      recorded
        == .recorded(version: 2, files: ["notes-v2.shape.json", "notes-v2.json", "fixtures.lock"]))
    #expect(
      try FormatDrift.check(
        RenamedV2.self, sample: sample, name: "notes", in: directory, record: false)
        == .unchanged(version: 2))
    #expect(FixtureLock.problems(in: directory).isEmpty)
    #expect(
      try RenamedV2.decode(Data(contentsOf: directory.appending(path: "notes-v2.json"))) == sample)
  }

  @Test("Recording never overwrites an existing fixture")
  func recordingKeepsFixtures() throws {
    let folder = try TemporaryFolder()
    let directory = folder.url
    let fixture = directory.appending(path: "notes-v1.json")
    try Data(#"{"version":1,"content":[]}"#.utf8).write(to: fixture)
    let result = try FormatDrift.check(
      V1.self, sample: [NoteV1(id: 1, text: "a")], name: "notes", in: directory, record: true)
    #expect(result == .recorded(version: 1, files: ["notes-v1.shape.json"]))
    #expect(try Data(contentsOf: fixture) == Data(#"{"version":1,"content":[]}"#.utf8))
  }

  @Test("Array elements merge into one shape; mixed types become a union")
  func merging() {
    let shape = JSONShape(of: [["a": 1], ["b": "x"], ["a": nil]])
    #expect(shape == .array(.object(["a": .oneOf([.number, .null]), "b": .string])))
    #expect(JSONShape(json: shape.json) == shape)
  }
}

extension FormatDriftTests.NoteRenamed: Equatable {}
