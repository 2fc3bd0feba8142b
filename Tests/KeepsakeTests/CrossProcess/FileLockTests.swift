import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  @Test("A folder where the lock file goes fails the save with what to do, and the file is left")
  func folderInTheWayOfTheLock() async throws {
    let disk = try RealDisk()
    let url = disk.file("data.json")
    try Data("[1]".utf8).write(to: url)
    try FileManager.default.createDirectory(
      at: disk.file("data.json.lock"), withIntermediateDirectories: false)
    let numbers = disk.shared(.fileStorage(url), in: disk.process(), default: [Int]())
    numbers.withLock { $0.append(2) }

    await #expect(throws: SharedSaveError.self) { try await numbers.save() }
    let message = String(describing: try #require(numbers.saveError))
    #expect(
      message.contains(
        "Could not lock \(url.path).lock: Is a directory; that is a folder, where Keepsake keeps "
          + "the lock of the file beside it, so nothing was written: move the folder away."),
      "\(message)")
    #expect(try Data(contentsOf: url) == Data("[1]".utf8))
    // Done as the message says, the change saves: nothing is left pending when the test's
    // folder goes (it would be kept away from it, in the machine's temporary folder).
    try FileManager.default.removeItem(at: disk.file("data.json.lock"))
    try await numbers.save()
    #expect(try Data(contentsOf: url) == Data("[1,2]".utf8))
  }

  @Test("A lock another process holds times out naming that process, and what to do")
  func heldByAnotherProcess() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    let lockFile = url.path + ".lock"
    // `flock(1)` takes the same kind of lock on the same lock file, then the shell says so and
    // becomes `sleep`, one process holding the lock until it is killed.
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/bin/sh")
    holder.arguments = [
      "-c", #"exec 9>"$0" && flock --exclusive 9 && echo locked && exec sleep 60"#, lockFile,
    ]
    let output = Pipe()
    holder.standardOutput = output
    try holder.run()
    defer {
      kill(holder.processIdentifier, SIGKILL)
      holder.waitUntilExit()
    }
    let line = output.fileHandleForReading.availableData
    #expect(String(decoding: line, as: UTF8.self) == "locked\n")

    #expect {
      try LocalFileSystem().lockExclusively(url, timeout: .milliseconds(50))
    } throws: { error in
      guard let error = error as? FileSystemError else { return false }
      return error.reason == .lockTimedOut(seconds: 0)
        && error.description
          == "Could not lock \(lockFile): another process held its lock for 0 seconds; nothing "
          + "was written: try again once it has finished, or end the process that is stuck "
          + "holding it."
    }
  }

  @Test("Where flock needs a writable file (NFS emulates it), the lock file is opened for writing")
  func lockNeedsWriting() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    let live = SystemCalls.live
    // As NFS does: an exclusive flock is a byte-range write lock, refused on a read-only file.
    let calls = SystemCalls { call in
      if case .flock(let fd, let operation) = call, operation & LOCK_EX != 0,
        fcntl(fd, F_GETFL) & O_ACCMODE == O_RDONLY
      {
        errno = EBADF
        return -1
      }
      return live.perform(call)
    }
    let fileSystem = LocalFileSystem(calls: calls)
    let lock = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
    // It is held: another attempt (a read-only open, refused the same way, then a writable
    // one) times out.
    #expect(throws: FileSystemError.self) {
      _ = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
    }
    lock.release()
    _ = try fileSystem.lockExclusively(url, timeout: .milliseconds(30))
  }
}
