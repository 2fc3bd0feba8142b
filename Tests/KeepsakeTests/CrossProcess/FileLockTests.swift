import Foundation
import Keepsake
import KeepsakeTesting
import Testing

@Suite("File locks")
struct FileLockTests {
  @Test(
    "A held lock makes a second one wait, then time out with a clear error",
    arguments: [
      "in memory", "real disk",
    ])
  func lockTimesOut(_ backend: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    let fileSystem: any FileSystem =
      backend == "in memory" ? InMemoryFileSystem() : LocalFileSystem()
    let first = try fileSystem.lockExclusively(url)
    #expect(throws: FileSystemError.self) {
      _ = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
    }
    do {
      _ = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
    } catch let error as FileSystemError {
      #expect(error.operation == .lock)
      // The real disk knows this very process holds the lock; the in-memory one stands for
      // processes with its storage contexts.
      if backend == "real disk" {
        #expect(error.reason == .lockHeldByThisProcess(seconds: 0))
        #expect(error.description.contains("this process itself held the file's lock"))
      } else {
        #expect(error.reason == .lockTimedOut(seconds: 0))
        #expect(error.description.contains("another process held its lock"))
      }
    }
    first.release()
    let second = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
    second.release()
  }

  @Test("The lock is a file beside the target, never the target itself")
  func lockFileBesideTarget() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    try Data("[]".utf8).write(to: url)
    let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber]
    let lock = try LocalFileSystem().lockExclusively(url)
    defer { lock.release() }
    #expect(folder.names.contains("data.json.lock"))
    // An atomic replace while the lock is held must not drop it.
    try LocalFileSystem().writeAtomically(Data("[1]".utf8), to: url)
    #expect(throws: FileSystemError.self) {
      _ = try LocalFileSystem().lockExclusively(url, timeout: .milliseconds(30))
    }
    let after = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber]
    #expect((inode as? Int) != (after as? Int), "the write replaced the inode")
  }

  @Test("Releasing twice, or dropping the lock, lets the next holder in")
  func releaseIsIdempotent() throws {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/a/b.json")
    do {
      let lock = try disk.lockExclusively(url)
      lock.release()
      lock.release()
    }
    do { _ = try disk.lockExclusively(url) }
    #expect(!disk.isLocked(url), "a dropped lock is released")
    let again = try disk.lockExclusively(url, timeout: .milliseconds(30))
    again.release()
  }
}
