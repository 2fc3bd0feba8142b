import Foundation
import KeepsakeTesting
import Testing

/// A format of three versions: v1 `[String]`, v2 `[Note]` with a title, v3 adds `pinned`.
private enum NotesFormat: VersionedFormat {
  struct NoteV2: Codable, Sendable { var title: String }
  struct Note: Codable, Sendable, Equatable {
    var title: String
    var pinned: Bool
  }

  static let currentVersion = 3
  static let migrations =
    MigrationChain
    .starting(at: 1, with: [String].self)
    .migrating(to: 2, as: [NoteV2].self) { old in old.map { NoteV2(title: $0) } }
    .migrating(to: 3, as: [Note].self) { old in old.map { Note(title: $0.title, pinned: false) } }
}

@Suite("Golden fixtures read through the current chain")
struct FormatFixturesTests {
  let folder: TemporaryFolder

  init() throws {
    folder = try TemporaryFolder()
    write("notes-v1.json", #"{"content":["a"],"version":1}"#)
    write("notes-v2.json", #"{"content":[{"title":"a"}],"version":2}"#)
    write("notes-v3.json", #"{"content":[{"pinned":true,"title":"a"}],"version":3}"#)
    write("notes-v3.shape.json", #"{"not":"a fixture"}"#)
    write("other-v1.json", #"{"content":1,"version":1}"#)
  }

  func write(_ name: String, _ text: String) {
    try? Data(text.utf8).write(to: folder.url.appending(path: name))
  }

  @Test("Every version's fixture reads: no problems, and other formats' files are not its own")
  func allRead() {
    #expect(FormatFixtures.problems(NotesFormat.self, name: "notes", in: folder.url) == [])
    #expect(
      FormatFixtures.fixtureNames(name: "notes", in: folder.url)
        == ["notes-v1.json", "notes-v2.json", "notes-v3.json"])
  }

  @Test("A fixture that no longer reads is a problem that names it and the failing path")
  func unreadable() {
    write("notes-v2.json", #"{"content":[{"name":"a"}],"version":2}"#)
    let problems = FormatFixtures.problems(NotesFormat.self, name: "notes", in: folder.url)
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("The golden fixture notes-v2.json no longer reads") == true)
    #expect(problems.first?.contains("never edit the fixture") == true)
  }

  @Test("A version without a fixture is a problem")
  func missingVersion() throws {
    try FileManager.default.removeItem(at: folder.url.appending(path: "notes-v2.json"))
    let problems = FormatFixtures.problems(NotesFormat.self, name: "notes", in: folder.url)
    #expect(problems.count == 1)
    #expect(problems.first?.hasPrefix("No golden fixture for version 2 of notes") == true)
  }

  @Test("A fixture named for one version but holding another is a problem")
  func misnamed() {
    write("notes-v2.json", #"{"content":[{"pinned":true,"title":"a"}],"version":3}"#)
    let problems = FormatFixtures.problems(NotesFormat.self, name: "notes", in: folder.url)
    #expect(
      problems == ["The fixture notes-v2.json is named version 2 but its envelope says 3."])
  }

  @Test("A fixture from a version the format does not know yet is a problem")
  func fromTheFuture() {
    write("notes-v4.json", #"{"content":[],"version":4}"#)
    let problems = FormatFixtures.problems(NotesFormat.self, name: "notes", in: folder.url)
    #expect(problems.count == 1)
    #expect(problems.first?.contains("notes-v4.json no longer reads") == true)
  }

  @Test("The source folder is the folder beside the calling test file")
  func sourceFolder() {
    let url = FormatFixtures.sourceFolder("Fixtures")
    #expect(url.path.hasSuffix("/Tests/KeepsakeTestingTests/Fixtures"))
  }
}

@Suite("Record mode says what it wrote")
struct FormatRecordMessageTests {
  @Test("Recording a new version lists the shape, the fixture and the lock, and what to do")
  func recordedMessage() throws {
    let folder = try TemporaryFolder()
    let result = try FormatDrift.check(
      NotesFormat.self, sample: [.init(title: "a", pinned: true)], name: "notes", in: folder.url,
      record: true)
    let message = try #require(result.recordedMessage(in: folder.url))
    #expect(
      message
        == "Recorded format version 3 in \(folder.url.path): notes-v3.shape.json, notes-v3.json, "
        + "fixtures.lock. Check them, then commit them (a new fixture with its line in "
        + "fixtures.lock).")
    #expect(FormatDriftResult.unchanged(version: 3).recordedMessage(in: folder.url) == nil)
  }
}
