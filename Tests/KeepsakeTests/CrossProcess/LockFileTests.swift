import Dispatch
import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lock file the programs around a user's files touch: removed by a cleanup of `*.lock`,
/// replaced, or something else planted at its name.
@Suite("Lock files that other programs touch")
struct LockFileTests {
  @Test("A FIFO at the lock's name is refused at once, never waited on, and left as it is")
  func fifo() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    let lockPath = folder.file("data.json.lock").path
    #expect(mkfifo(lockPath, 0o644) == 0)
    #expect {
      _ = try LocalFileSystem().lockExclusively(url, timeout: .seconds(1))
    } throws: { error in
      (error as? FileSystemError)?.reason == .notARegularFile(kind: "a FIFO")
    }
    var info = stat()
    #expect(lstat(lockPath, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
  }

  @Test("A link planted at the lock's name is refused, and nothing is made where it points")
  func plantedLink() throws {
    let folder = try TemporaryFolder()
    let elsewhere = try TemporaryFolder()
    let target = elsewhere.file("chosen-by-someone-else")
    #expect(symlink(target.path, folder.file("data.json.lock").path) == 0)
    #expect {
      _ = try LocalFileSystem().lockExclusively(folder.file("data.json"), timeout: .seconds(1))
    } throws: { error in
      (error as? FileSystemError)?.reason == .notARegularFile(kind: "a symbolic link")
    }
    #expect(!FileManager.default.fileExists(atPath: target.path))
  }

  @Test("A lock file removed while a process waits for it: the waiter locks the file that is there")
  func removedWhileWaiting() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("data.json")
    let lockPath = folder.file("data.json.lock").path
    let holder = try LocalFileSystem().lockExclusively(url, timeout: .seconds(1))
    let waiter = Mutex<FileLock?>(nil)
    let waiting = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      waiting.signal()
      let lock = try? LocalFileSystem().lockExclusively(url, timeout: .seconds(20))
      waiter.withLock { $0 = lock }
      done.signal()
    }
    waiting.wait()
    // The waiter has opened the old file and waits on it; a cleanup removes it.
    usleep(20_000)
    #expect(unlink(lockPath) == 0)
    holder.release()
    done.wait()
    let lock = try #require(waiter.withLock { $0 })
    // The waiter holds the lock file that is there now: a third process cannot take it.
    #expect(FileManager.default.fileExists(atPath: lockPath))
    #expect(throws: FileSystemError.self) {
      _ = try LocalFileSystem().lockExclusively(url, timeout: .milliseconds(50))
    }
    lock.release()
  }

  @Test("A lock file removed while held: the holder's commit merges what a second writer saved")
  func removedWhileHeld() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "one")]).write(to: file)
    let a = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("A"), default: [Note]())
    let b = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("B"), default: [Note]())
    try await a.withTransaction {
      a.withLock { $0.append(Note(id: 2, text: "A's, in its transaction")) }
      // A cleanup removes `*.lock` while A holds the lock: B locks a new file, and saves.
      #expect(unlink(disk.file("notes.json.lock").path) == 0)
      b.withLock { $0.append(Note(id: 3, text: "B's")) }
      try await b.save()
    }
    let stored = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    #expect(Set(stored.map(\.id)) == [1, 2, 3], "A's commit did not write over B's save")
  }
}
