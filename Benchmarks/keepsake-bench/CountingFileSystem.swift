import Foundation
import Keepsake
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real disk, counting atomic writes and noting any file operation on a watched thread.
final class CountingFileSystem: FileSystem {
  private let base = SystemCalls.live.fileSystem
  private let state = Mutex((writes: 0, watched: pthread_t?.none, ioOnWatched: false))

  var writes: Int { state.withLock { $0.writes } }
  var ioOnWatchedThread: Bool { state.withLock { $0.ioOnWatched } }

  /// Starts noting file operations made on the calling thread.
  func watchCurrentThread() { state.withLock { $0.watched = pthread_self() } }
  func stopWatching() { state.withLock { $0.watched = nil } }

  private func note(write: Bool = false) {
    state.withLock { state in
      if write { state.writes += 1 }
      if let watched = state.watched, pthread_equal(watched, pthread_self()) != 0 {
        state.ioOnWatched = true
      }
    }
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    note()
    return try base.contents(of: url, maximumSize: maximumSize)
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    note(write: true)
    try base.writeAtomically(data, to: url)
  }

  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    note(write: true)
    return try base.replaceAtomically(
      data, at: url, expecting: expected, creatingFolder: creatingFolder)
  }

  func removeItem(at url: URL) throws {
    note()
    try base.removeItem(at: url)
  }

  func contentsOfDirectory(at url: URL) throws -> [String] {
    note()
    return try base.contentsOfDirectory(at: url)
  }

  func identity(of url: URL) throws -> FileIdentity? {
    note()
    return try base.identity(of: url)
  }

  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    base.watch(url, onChange: onChange)
  }
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    note()
    return try base.lockExclusively(url, timeout: timeout)
  }
}
