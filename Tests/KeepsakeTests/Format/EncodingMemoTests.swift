import Foundation
import Keepsake
import Synchronization
import Testing

/// A file key whose value is an array writes it again by encoding only what changed, and the
/// file holds exactly what encoding the whole value writes.
@Suite("File keys writing an array again")
struct EncodingMemoTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/tasks.json")

  @Test(
    "A save after one element changed encodes that element only, to the whole encoding's bytes",
    arguments: StorageBackend.allCases)
  func saveEncodesOnlyTheChangedElement(_ backend: StorageBackend) async throws {
    let encodes = try await saveAgain(backend, format: nil)
    #expect(encodes == ["t0": 1, "t1": 1, "t2": 1, "t1 done": 1, "t3": 1])
  }

  @Test(
    "A versioned file's array is saved again by encoding only the changed element",
    arguments: StorageBackend.allCases)
  func versionedFileEncodesOnlyTheChangedElement(_ backend: StorageBackend) async throws {
    let encodes = try await saveAgain(backend, format: CountedTasksFormat.self)
    #expect(encodes == ["t0": 1, "t1": 1, "t2": 1, "t1 done": 1, "t3": 1])
  }

  /// Saves three tasks, then one changed and one appended, checking the file against a whole
  /// encoding after each save; returns how often each task's text was encoded by the key.
  private func saveAgain(
    _ backend: StorageBackend, format: CountedTasksFormat.Type?
  ) async throws -> [String: Int] {
    let tag = UUID().uuidString
    try await backend.run { disk in
      let key: FileStorageKey<[CountedTask]> =
        format == nil ? .fileStorage(url) : .fileStorage(url, format: CountedTasksFormat.self)
      @Shared(key) var tasks: [CountedTask] = []
      $tasks.withLock { $0 = (0..<3).map { CountedTask(text: "t\($0)", tag: tag) } }
      try await $tasks.save()
      try expectWholeEncoding(on: disk, tasks, format: format)
      $tasks.withLock {
        $0[1].text = "t1 done"
        $0.append(CountedTask(text: "t3", tag: tag))
      }
      try await $tasks.save()
      try expectWholeEncoding(on: disk, tasks, format: format)
    }
    return CountedTask.encodes(tag)
  }

  private func expectWholeEncoding(
    on disk: BackendDisk, _ tasks: [CountedTask], format: CountedTasksFormat.Type?
  ) throws {
    // NB: not counted: the tag is replaced.
    let uncounted = tasks.map { CountedTask(text: $0.text, tag: "") }
    let whole = try format == nil ? wholeJSON(uncounted) : CountedTasksFormat.encode(uncounted)
    let written = try #require(try disk.contents(of: url))
    #expect(
      written.replacing(Data(tasks.first?.tag.utf8 ?? "".utf8), with: Data()) == whole,
      "\(String(decoding: written, as: UTF8.self))")
  }

  private func wholeJSON(_ tasks: [CountedTask]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(tasks)
  }
}

/// Tasks in an envelope, at their first version.
private enum CountedTasksFormat: VersionedFormat {
  typealias Value = [CountedTask]
  static let currentVersion = 1
}

/// An element that counts how often each text of one test (its tag) was encoded: encoding runs
/// on the key's own threads, out of reach of a task-local.
private struct CountedTask: Codable, Equatable, Sendable {
  var text: String
  var tag: String

  private static let counts = Mutex<[String: [String: Int]]>([:])

  static func encodes(_ tag: String) -> [String: Int] { counts.withLock { $0[tag] ?? [:] } }

  func encode(to encoder: any Encoder) throws {
    if !tag.isEmpty { Self.counts.withLock { $0[tag, default: [:]][text, default: 0] += 1 } }
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
    try container.encode(tag, forKey: .tag)
  }
}
