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
    let decodes = try await readAgain(backend, ["a", "b"], then: ["a", "b", "c"])
    #expect(decodes == ["a": 1, "b": 1, "c": 1])
  }

  @Test(
    "An element another process changed is read again, and the ones after it",
    arguments: StorageBackend.allCases)
  func editIsReadAgain(_ backend: StorageBackend) async throws {
    let decodes = try await readAgain(backend, ["a", "b", "c"], then: ["a", "x", "c"])
    #expect(decodes == ["a": 1, "b": 1, "c": 2, "x": 1])
  }

  @Test(
    "A versioned file's array is read again by decoding only the changed elements",
    arguments: StorageBackend.allCases)
  func versionedFileDecodesOnlyChangedElements(_ backend: StorageBackend) async throws {
    let decodes = try await readAgain(
      backend, ["a", "b"], then: ["a", "b", "c"], format: CountedNotesFormat.self)
    #expect(decodes == ["a": 1, "b": 1, "c": 1])
  }

  /// Writes a file of notes with `texts`, opens a key on it (of `format`, if given), replaces
  /// the file with `changed` as another process would, waits until the key holds it, and
  /// returns how often each text was decoded.
  private func readAgain(
    _ backend: StorageBackend, _ texts: [String], then changed: [String],
    format: CountedNotesFormat.Type? = nil
  ) async throws -> [String: Int] {
    let tag = UUID().uuidString
    func file(_ texts: [String]) throws -> Data {
      let notes = texts.map { CountedNote(text: $0, tag: tag) }
      return try format == nil ? CountedNote.file(notes) : CountedNotesFormat.encode(notes)
    }
    try await backend.run { disk in
      try disk.write(file(texts), to: url)
      let key: FileStorageKey<[CountedNote]> =
        format == nil ? .fileStorage(url) : .fileStorage(url, format: CountedNotesFormat.self)
      @Shared(key) var notes: [CountedNote] = []
      #expect(notes.map(\.text) == texts)
      #expect(CountedNote.decodes(tag) == Dictionary(texts.map { ($0, 1) }) { $0 + $1 })
      try disk.write(file(changed), to: url)
      try await disk.eventually($notes) { [notes = $notes] in
        notes.wrappedValue.map(\.text) == changed
      }
    }
    return CountedNote.decodes(tag)
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

  static func file(_ notes: [CountedNote]) throws -> Data {
    // NB: sorted keys, so the same element has the same bytes in both files, as Keepsake and
    // any stable writer write it (an unsorted encoder's order varies from one call to the next).
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try encoder.encode(notes)
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
