import Foundation
@_spi(Testing) import Keepsake
import KeepsakeTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A key's `maximumFileSize` holds on load and on save: a key never writes what it would refuse
/// to read, and a file over the limit can still be set aside and replaced.
@Suite("Size limits")
struct SizeLimitTests {
  struct Note: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var text: String
  }

  let url = URL(fileURLWithPath: "/data/notes.json")

  /// Notes that encode to more than `bytes` bytes.
  static func notes(over bytes: Int) -> [Note] {
    (0..<(bytes / 40 + 1)).map { Note(id: $0, text: String(repeating: "x", count: 30)) }
  }

  @Test(
    "A key's maximumFileSize refuses a larger file on load, and reads one at the limit",
    arguments: StorageBackend.allCases)
  func limitOnLoad(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let bytes = try JSONEncoder().encode([Note(id: 1, text: "a note of some length")])
      try disk.write(bytes, to: url)
      @Shared(.fileStorage(url, maximumFileSize: bytes.count - 1)) var refused: [Note] = []
      let reason = ($refused.loadError?.underlying as? FileSystemError)?.reason
      #expect(reason == .tooLarge(size: Int64(bytes.count), limit: bytes.count - 1))
      #expect(refused.isEmpty)
      #expect(try disk.contents(of: url) == bytes, "the file is left as it was")
    }
    try await backend.run { disk in
      let bytes = try JSONEncoder().encode([Note(id: 1, text: "a note of some length")])
      try disk.write(bytes, to: url)
      @Shared(.fileStorage(url, maximumFileSize: bytes.count)) var read: [Note] = []
      #expect($read.loadError == nil)
      #expect(read == [Note(id: 1, text: "a note of some length")])
    }
  }

  @Test(
    "A save over maximumFileSize is refused before anything is written, naming both sizes",
    arguments: StorageBackend.allCases)
  func limitOnSave(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let before = try JSONEncoder().encode([Note(id: 0, text: "kept")])
      try disk.write(before, to: url)
      @Shared(.fileStorage(url, maximumFileSize: 1000)) var notes: [Note] = []
      let big = Self.notes(over: 1000)
      let size = try JSONEncoder().encode(big).count
      $notes.withLock { $0 = big }
      let writesBefore = disk.inMemory?.operations.filter { $0.operation == .write }.count

      await #expect {
        try await $notes.save()
      } throws: { error in
        guard case .writeFailed(_, let underlying)? = error as? SharedSaveError,
          let failure = underlying as? FileSystemError
        else { return false }
        return failure.operation == .write
          && failure.reason == .valueTooLarge(size: size, limit: 1000)
      }
      let message = String(describing: try #require($notes.saveError))
      #expect(message.contains("the value is \(size) bytes once encoded"), "\(message)")
      #expect(message.contains("maximumFileSize of 1000 bytes"), "\(message)")
      #expect(try disk.contents(of: url) == before, "nothing was written")
      if let memory = disk.inMemory {
        let writes = memory.operations.filter { $0.operation == .write }.count
        #expect(writes == writesBefore, "no byte was written")
      }
      // The change stays pending: a flush tries it again, and a smaller value is saved.
      await #expect(throws: SharedSaveError.self) { try await $notes.flush() }
      $notes.withLock { $0 = Array($0.prefix(3)) }
      try await $notes.flush()
      #expect($notes.saveError == nil)
      let saved = try #require(try disk.contents(of: url))
      #expect(try JSONDecoder().decode([Note].self, from: saved) == Array(big.prefix(3)))
    }
  }

  @Test("The next launch of a key that refused an oversized save reads the file it kept")
  func nextLaunchReads() async throws {
    let disk = try RealDisk()
    let url = disk.file("notes.json")
    let key = FileStorageKey<[Note]>.fileStorage(url, maximumFileSize: 1000)
    let first = disk.shared(key, in: disk.process("first launch"), default: [])
    first.withLock { $0 = Self.notes(over: 2000) }
    await #expect(throws: SharedSaveError.self) { try await first.save() }

    let next = disk.shared(key, in: disk.process("next launch"), default: [])
    #expect(next.loadError == nil)
    #expect(next.wrappedValue.isEmpty, "nothing was written, so nothing over the limit is met")
  }

  @Test(
    "replaceUnreadableData sets a file over the limit aside without reading it, then saves",
    arguments: [false, true])
  func replaceOversized(_ sparseHuge: Bool) async throws {
    let disk = try RealDisk()
    let url = disk.file("notes.json")
    let limit = sparseHuge ? FileSystemLimits.defaultMaximumFileSize : 1000
    if sparseHuge {
      // 3 GB that take no space and no time: the hole is never read.
      let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      #expect(fd >= 0 && ftruncate(fd, 3 << 30) == 0)
      close(fd)
    } else {
      try JSONEncoder().encode(Self.notes(over: 2000)).write(to: url)
    }
    let original = try FileSnapshot(url)
    let notes = disk.shared(
      .fileStorage(url, maximumFileSize: limit), in: disk.process(), default: [Note]())
    let reason = (notes.loadError?.underlying as? FileSystemError)?.reason
    guard case .tooLarge? = reason else {
      Issue.record(
        "expected the file to be refused for its size, got \(String(describing: reason))")
      return
    }

    notes.withLock { $0 = [Note(id: 1, text: "starting over")] }
    let quarantine = try #require(try await notes.replaceUnreadableData())

    // The same file under a second name: nothing was read or copied.
    let kept = try FileSnapshot(quarantine)
    #expect(kept.inode == original.inode)
    #expect(kept.size == original.size)
    let saved = try Data(contentsOf: url)
    #expect(
      try JSONDecoder().decode([Note].self, from: saved) == [Note(id: 1, text: "starting over")])
    #expect(notes.loadError == nil)
    #expect(notes.saveError == nil)
  }
}
