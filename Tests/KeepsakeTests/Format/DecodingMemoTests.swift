import Foundation
import Keepsake
import Synchronization
import Testing

/// A file key whose value is an array reads the file again by decoding only what changed.
@Suite("File keys reading an array again")
struct DecodingMemoTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/notes.json")

  @Test(
    "An element another process appended is the only one decoded",
    arguments: StorageBackend.allCases)
  func appendDecodesOnlyTheNewElement(_ backend: StorageBackend) async throws {
    let tag = UUID().uuidString
    try await backend.run { disk in
      try disk.write(CountedNote.file(["a", "b"], tag: tag), to: url)
      @Shared(.fileStorage(url)) var notes: [CountedNote] = []
      #expect(notes.map(\.text) == ["a", "b"])
      #expect(CountedNote.decodes(tag) == ["a": 1, "b": 1])
      try await $notes.flush()
      #expect(CountedNote.decodes(tag) == ["a": 1, "b": 1])
      try disk.write(CountedNote.file(["a", "b", "c"], tag: tag), to: url)
      try await disk.eventually($notes) { [notes = $notes] in notes.wrappedValue.count == 3 }
      #expect(notes.map(\.text) == ["a", "b", "c"])
      #expect(CountedNote.decodes(tag) == ["a": 1, "b": 1, "c": 1])
    }
  }

  @Test(
    "An element another process changed is read again, and the ones after it",
    arguments: StorageBackend.allCases)
  func editIsReadAgain(_ backend: StorageBackend) async throws {
    let tag = UUID().uuidString
    try await backend.run { disk in
      try disk.write(CountedNote.file(["a", "b", "c"], tag: tag), to: url)
      @Shared(.fileStorage(url)) var notes: [CountedNote] = []
      try disk.write(CountedNote.file(["a", "x", "c"], tag: tag), to: url)
      try await disk.eventually($notes) { [notes = $notes] in
        notes.wrappedValue.map(\.text) == ["a", "x", "c"]
      }
      #expect(CountedNote.decodes(tag) == ["a": 1, "b": 1, "c": 2, "x": 1])
    }
  }
}

extension DecodingMemoTests {
  @Test(
    "A versioned file's array is read again by decoding only the changed elements",
    arguments: StorageBackend.allCases)
  func versionedFileDecodesOnlyChangedElements(_ backend: StorageBackend) async throws {
    let tag = UUID().uuidString
    try await backend.run { disk in
      try disk.write(CountedNotesFormat.encode(CountedNote.notes(["a", "b"], tag: tag)), to: url)
      @Shared(.fileStorage(url, format: CountedNotesFormat.self)) var notes: [CountedNote] = []
      #expect(notes.map(\.text) == ["a", "b"])
      try disk.write(
        CountedNotesFormat.encode(CountedNote.notes(["a", "b", "c"], tag: tag)), to: url)
      try await disk.eventually($notes) { [notes = $notes] in notes.wrappedValue.count == 3 }
      #expect(notes.map(\.text) == ["a", "b", "c"])
      #expect(CountedNote.decodes(tag) == ["a": 1, "b": 1, "c": 1])
    }
  }
}

/// Notes in an envelope, at their first version.
private enum CountedNotesFormat: VersionedFormat {
  typealias Value = [CountedNote]
  static let currentVersion = 1
}

/// An element that counts how often each text of one test (its tag) was decoded: decoding runs
/// on the key's own threads, out of reach of a task-local.
private struct CountedNote: Codable, Equatable, Sendable {
  var text: String
  var tag: String

  private static let counts = Mutex<[String: [String: Int]]>([:])

  static func decodes(_ tag: String) -> [String: Int] { counts.withLock { $0[tag] ?? [:] } }

  static func notes(_ texts: [String], tag: String) -> [CountedNote] {
    texts.map { CountedNote(text: $0, tag: tag) }
  }

  static func file(_ texts: [String], tag: String) throws -> Data {
    // NB: sorted keys, so the same element has the same bytes in both files, as Keepsake and
    // any stable writer write it (an unsorted encoder's order varies from one call to the next).
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try encoder.encode(texts.map { CountedNote(text: $0, tag: tag) })
  }

  init(text: String, tag: String) {
    self.text = text
    self.tag = tag
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    text = try container.decode(String.self, forKey: .text)
    tag = try container.decode(String.self, forKey: .tag)
    Self.counts.withLock { [text, tag] in $0[tag, default: [:]][text, default: 0] += 1 }
  }
}
