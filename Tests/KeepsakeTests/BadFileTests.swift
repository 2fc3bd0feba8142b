import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake
@testable import KeepsakeTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// data-safety rule "Bad files get a clear error at once" (DataSafety.md): a FIFO, a device, a
/// socket or a directory at a key's path, a file over the size limit and a link loop get a clear
/// error at once, on the real disk, and are left as they are.
@Suite("Bad files")
struct BadFileTests {
  let fileSystem = LocalFileSystem()

  @Test(
    "A bad file is refused at once with the reason, and left as it is", arguments: BadFile.allCases)
  func refusedAtOnce(_ kind: BadFile) async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("store.json")
    try kind.make(at: url)
    let before = try FileSnapshot(url)
    let result = try #require(
      await returning { try LocalFileSystem().contents(of: url) }, "contents(of:) never returned")
    #expect(throws: FileSystemError(.read, path: url.path, reason: kind.reason)) {
      try result.get()
    }
    #expect(try FileSnapshot(url) == before)
    #expect(folder.names == ["store.json"] + kind.companions)
  }

  @Test(
    "Through @Shared a bad file is a load error naming it, and a save leaves it be",
    arguments: BadFile.allCases)
  func sharedKeyLeavesItBe(_ kind: BadFile) async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("store.json")
    try kind.make(at: url)
    let before = try FileSnapshot(url)
    let context = StorageContext.confined(to: folder.url)
    // NB: the first `Shared` of a key loads synchronously, so a regression would block here.
    let items = try #require(
      await returning {
        StorageContext.withValue(context) {
          @Shared(.fileStorage(url)) var items: [Int] = []
          return $items
        }
      }, "the first load never returned"
    ).get()
    let loadError = try #require(items.loadError)
    #expect(loadError.description.contains(kind.phrase), "\(loadError)")
    #expect(loadError.description.contains(url.path), "\(loadError)")
    items.withLock { $0.append(1) }
    await #expect(throws: SharedSaveError.self) { try await items.flush() }
    await #expect(throws: SharedSaveError.self) { try await items.save() }
    #expect(try FileSnapshot(url) == before)
    // The refused change is kept beside it, the one file a save adds.
    let kept = folder.names.filter { $0.hasPrefix("store.unsaved-") }
    #expect(kept.count == 1)
    #expect(folder.names.filter { !kept.contains($0) } == ["store.json"] + kind.companions)
  }

  @Test("A file over an explicit limit is refused by its size; one at the limit is read")
  func explicitLimit() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("store.json")
    let bytes = Data(repeating: UInt8(ascii: "x"), count: 100)
    try bytes.write(to: url)
    let before = try FileSnapshot(url)
    #expect(throws: FileSystemError(.read, path: url.path, reason: .tooLarge(size: 100, limit: 99)))
    {
      try fileSystem.contents(of: url, maximumSize: 99)
    }
    #expect(try fileSystem.contents(of: url, maximumSize: 100) == bytes)
    #expect(try FileSnapshot(url) == before)
  }

  #if os(Linux)
    @Test("A file that yields more than its size says is refused at the byte over the limit")
    func growsPastTheLimit() throws {
      // NB: /proc files claim a size of 0 and then yield their text, exactly what a file that
      // another process extends while it is read looks like to the read loop.
      let url = URL(fileURLWithPath: "/proc/self/status")
      do {
        _ = try fileSystem.contents(of: url, maximumSize: 64)
        Issue.record("a 64-byte limit accepted \(url.path)")
      } catch let error as FileSystemError {
        guard case .tooLarge(let size, let limit) = error.reason else {
          Issue.record("unexpected reason: \(error)")
          return
        }
        #expect(limit == 64)
        #expect(size >= 65)
      }
      #expect(try fileSystem.contents(of: url)?.isEmpty == false)
    }
  #endif

  @Test("A link loop is named as such by identity(of:), and writing through it leaves the links")
  func linkLoop() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("store.json")
    try BadFile.linkLoop.make(at: url)
    let before = try FileSnapshot(url)
    #expect(throws: FileSystemError(.read, path: url.path, reason: .linkLoop)) {
      try fileSystem.identity(of: url)
    }
    let write = try #require(
      await returning { try LocalFileSystem().writeAtomically(Data("[1]".utf8), to: url) },
      "writeAtomically never returned")
    #expect(throws: FileSystemError(.write, path: url.path, reason: .linkLoop)) {
      try write.get()
    }
    // `watch` resolves links too; on a loop that must neither hang nor crash.
    let watch = await returning { LocalFileSystem().watch(url) {} != nil }
    #expect(watch != nil, "watch never returned")
    #expect(try FileSnapshot(url) == before)
    #expect(folder.names == ["store.json"] + BadFile.linkLoop.companions)
  }

  @Test("The in-memory file system refuses a file over the limit the same way, and keeps it")
  func inMemoryLimit() throws {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/data/store.json")
    let bytes = Data(repeating: 7, count: 100)
    disk.setContents(bytes, at: url)
    #expect(throws: FileSystemError(.read, path: url.path, reason: .tooLarge(size: 100, limit: 99)))
    {
      try disk.contents(of: url, maximumSize: 99)
    }
    #expect(try disk.contents(of: url, maximumSize: 100) == bytes)
    #expect(disk.files == [url.path: bytes])
    #expect(disk.operations.map { $0.error?.reason } == [.tooLarge(size: 100, limit: 99), nil])
  }

  @Test(
    "Each reason says what was found and that it was left alone",
    arguments: [
      (
        FileSystemError.Reason.notARegularFile(kind: "a FIFO"),
        "it is a FIFO, not a regular file, so it was not read and was left untouched; "
          + "remove it or point the key at a file"
      ),
      (
        .tooLarge(size: 3 << 30, limit: FileSystemLimits.defaultMaximumFileSize),
        "the file is 3221225472 bytes (3072.0 MiB), more than the limit of 268435456 bytes "
          + "(256.0 MiB), so it was not read and was left untouched; move it aside or raise "
          + "the limit"
      ),
      (
        .tooLarge(size: 100, limit: 99),
        "the file is 100 bytes, more than the limit of 99 bytes, so it was not read and was left "
          + "untouched; move it aside or raise the limit"
      ),
      (
        .linkLoop,
        "the path is a loop of symbolic links that never reaches a file, so nothing was read and "
          + "the links were left untouched; fix or remove one of them"
      ),
    ])
  func descriptions(_ reason: FileSystemError.Reason, _ text: String) {
    #expect(reason.description == text)
  }

  @Test("ELOOP maps to a link loop")
  func eloop() {
    #expect(FileSystemError.Reason(errno: ELOOP) == .linkLoop)
  }
}
