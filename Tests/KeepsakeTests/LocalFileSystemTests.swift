import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Local file system")
struct LocalFileSystemTests {
  let fileSystem = LocalFileSystem()

  @Test("A read answered EAGAIN clears O_NONBLOCK and is retried once; again, it is an error")
  func readAnsweredEAGAIN() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    try Data("[1,2,3]".utf8).write(to: file)
    let fd = open(file.path, O_RDONLY | O_NONBLOCK)
    try #require(fd >= 0)
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 16)
    var answers: [Int32] = [EINTR, EAGAIN]
    // A file system that answers EAGAIN to a regular file's read (a FUSE one, say), then reads.
    let flaky: (Int32, UnsafeMutableRawPointer, Int) -> Int = { fd, base, count in
      if !answers.isEmpty {
        errno = answers.removeFirst()
        return -1
      }
      return read(fd, base, count)
    }
    var cleared = false
    let count = buffer.withUnsafeMutableBytes { bytes in
      LocalFileSystem.readSome(fd, bytes.baseAddress!, bytes.count, &cleared, read: flaky)
    }
    #expect(count == 7)
    #expect(Array(buffer.prefix(7)) == Array("[1,2,3]".utf8))
    #expect(cleared)
    #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)

    // Once cleared, EAGAIN again is the file system's error, reported rather than retried forever.
    answers = [EAGAIN]
    let again = buffer.withUnsafeMutableBytes { bytes in
      LocalFileSystem.readSome(fd, bytes.baseAddress!, bytes.count, &cleared, read: flaky)
    }
    let code = errno
    #expect(again == -1)
    #expect(code == EAGAIN)
  }

  @Test("A read by path gives the identity of the version it read")
  func readGivesIdentity() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    try fileSystem.writeAtomically(Data("[1]".utf8), to: file)
    let first = try #require(try fileSystem.contents(atPath: file.path, maximumSize: 100))
    #expect(first.data == Data("[1]".utf8))
    #expect(first.identity != nil)
    #expect(first.identity == (try fileSystem.identity(of: file)))
    try fileSystem.writeAtomically(Data("[1,2]".utf8), to: file)
    let second = try #require(try fileSystem.contents(atPath: file.path, maximumSize: 100))
    #expect(second.identity == (try fileSystem.identity(of: file)))
    #expect(second.identity != first.identity, "a replaced file is another version")
    #expect(try fileSystem.contents(atPath: folder.file("none").path, maximumSize: 100) == nil)
  }

  @Test("A missing file reads as nil, not as an error")
  func missingFile() throws {
    let folder = try TemporaryFolder()
    #expect(try fileSystem.contents(of: folder.file("nothing.json")) == nil)
  }

  @Test("An atomic write replaces the file and leaves no temporary file")
  func atomicWrite() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("a.json")
    try fileSystem.writeAtomically(Data("one".utf8), to: url)
    try fileSystem.writeAtomically(Data("two".utf8), to: url)
    #expect(try fileSystem.contents(of: url) == Data("two".utf8))
    #expect(folder.names == ["a.json"])
  }

  @Test("Missing parent folders are created")
  func createsFolders() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("x/y/z.json")
    try fileSystem.writeAtomically(Data("deep".utf8), to: url)
    #expect(try fileSystem.contents(of: url) == Data("deep".utf8))
  }

  @Test("A 0600 file keeps its permissions")
  func keepsPermissions() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("secret.json")
    try fileSystem.writeAtomically(Data("one".utf8), to: url)
    chmod(url.path, 0o600)
    try fileSystem.writeAtomically(Data("two".utf8), to: url)
    var info = stat()
    stat(url.path, &info)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test("Writing through a symbolic link updates its target and keeps the link")
  func writesThroughLinks() throws {
    let folder = try TemporaryFolder()
    let target = folder.file("real.json")
    let link = folder.file("link.json")
    try fileSystem.writeAtomically(Data("one".utf8), to: target)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    try fileSystem.writeAtomically(Data("two".utf8), to: link)
    let destination = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
    #expect(destination == target.path)
    #expect(try fileSystem.contents(of: target) == Data("two".utf8))
  }

  @Test("A failed write leaves the target as it was and no temporary file")
  func failedWriteKeepsOldFile() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("a.json")
    try fileSystem.writeAtomically(Data("old".utf8), to: url)
    // A folder where the file should go makes the rename fail after the temp file was written.
    let blocked = folder.url.appendingPathComponent("blocked")
    try FileManager.default.createDirectory(
      at: blocked.appendingPathComponent("inside"), withIntermediateDirectories: true)
    #expect(throws: FileSystemError.self) {
      try fileSystem.writeAtomically(Data("new".utf8), to: blocked)
    }
    // The target (a folder here) is as it was, and the temporary file is gone.
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: blocked.path, isDirectory: &isFolder))
    #expect(isFolder.boolValue)
    #expect(try FileManager.default.contentsOfDirectory(atPath: blocked.path) == ["inside"])
    #expect(folder.names == ["a.json", "blocked"])
  }

  @Test("A folder's listing has every name, the longest allowed too, sorted, without . and ..")
  func listing() throws {
    let folder = try TemporaryFolder()
    let longest = String(repeating: "l", count: 250) + ".json"
    let names = ["b.json", ".hidden", longest, "é.json", "a"]
    for name in names { try Data().write(to: folder.file(name)) }
    // A name that is not valid UTF-8 is left out: no string names it exactly.
    let latin1: [UInt8] = Array((folder.url.path + "/caf").utf8) + [0xE9, 0]
    let fd = latin1.withUnsafeBufferPointer { bytes in
      bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
        open($0, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
      }
    }
    try #require(fd >= 0)
    close(fd)
    #expect(try fileSystem.contentsOfDirectory(at: folder.url) == names.sorted())
  }

  @Test("Reading a folder is a clear error")
  func readingAFolder() throws {
    let folder = try TemporaryFolder()
    #expect(throws: FileSystemError.self) { try fileSystem.contents(of: folder.url) }
  }

  @Test("Temporary files of killed writers are removed when a key starts; live ones are kept")
  func abandonedTemporaryFiles() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("items.json")
    // A pid that cannot be running (above the kernel's maximum).
    let abandoned = folder.file(".items.json.keepsake-tmp-99999999-1")
    let live = folder.file(".items.json.keepsake-tmp-\(getpid())-2")
    try Data("half".utf8).write(to: abandoned)
    try Data("mine".utf8).write(to: live)
    StorageContext.withValue(.confined(to: folder.url)) {
      @Shared(.fileStorage(url)) var items: [Int] = []
      _ = items
    }
    #expect(!FileManager.default.fileExists(atPath: abandoned.path))
    #expect(FileManager.default.fileExists(atPath: live.path))
  }

  @Test("A change by another process is noticed through the folder")
  func outsideWriteByAnotherProcess() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("shared.json")
    try Data("[1]".utf8).write(to: url)
    let context = StorageContext(
      name: "real", fileSystem: LocalFileSystem(), isIsolated: true
    ) { _ in InMemoryPreferences() }
    try await StorageContext.withValue(context) {
      @Shared(.fileStorage(url)) var numbers: [Int] = []
      #expect(numbers == [1])
      // Another process replaces the file atomically, as Keepsake itself would.
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", #"printf '[1,2,3]' > "$0.tmp" && mv "$0.tmp" "$0""#, url.path]
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      // The kernel tells the watcher, which reloads the key: the wait wakes at the new value.
      let shared = $numbers
      #expect(await waitUntil { shared.wrappedValue == [1, 2, 3] })
    }
  }
}
