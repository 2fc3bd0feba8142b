import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension LocalFileSystem {
  /// Takes an exclusive `flock` on the lock file beside `url` (creating the file and its
  /// folder if needed), waiting up to `timeout` for other processes to release it.
  ///
  /// `flock` locks belong to the open file description, so two locks taken in one process (two
  /// storage contexts, say) also exclude each other, exactly as two processes do.
  ///
  /// - Throws: ``FileSystemError`` with ``FileSystemError/Reason/lockTimedOut(seconds:)`` when
  ///   the lock stayed held by someone else for `timeout`, or the reason the lock file could not
  ///   be opened.
  package func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    // NB: beside the file a link leads to, never beside the link: every spelling of one file
    // (through links, `..`, a dangling link whose target a first save creates) shares one lock.
    let target = try resolve(url, for: .lock)
    let path = FileLock.lockFileURL(for: target).path
    // NB: opened for reading: closing a file opened for writing is an event for every process
    // watching the folder, one of the five each transaction made (issue 25), and `flock` needs
    // no write access, except where it is emulated with byte-range locks (NFS), for which the
    // lock file is opened again for writing. Its folder is made only when it is missing.
    var writable = false
    var fd = calls.open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
    if fd < 0 && errno == ENOENT {
      try createFolder(target.deletingLastPathComponent())
      fd = calls.open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else {
      throw FileSystemError(.lock, path: path, reason: .init(errno: errno))
    }
    // NB: a non-blocking attempt with a short, growing pause, rather than a blocking `flock`,
    // so a stuck holder gives an error after `timeout` instead of hanging the saver forever.
    let deadline = ContinuousClock.now + timeout
    var pause: UInt32 = 50
    while calls.flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      if code == EBADF && !writable {
        _ = calls.close(fd)
        fd = calls.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        writable = true
        guard fd >= 0 else {
          throw FileSystemError(.lock, path: path, reason: .init(errno: errno))
        }
        continue
      }
      guard code == EWOULDBLOCK || code == EAGAIN else {
        _ = calls.close(fd)
        throw FileSystemError(.lock, path: path, reason: .init(errno: code))
      }
      if ContinuousClock.now >= deadline {
        _ = calls.close(fd)
        let seconds = Int(timeout.components.seconds)
        throw FileSystemError(
          .lock, path: path,
          reason: FileLock.heldHere(path)
            ? .lockHeldByThisProcess(seconds: seconds) : .lockTimedOut(seconds: seconds))
      }
      usleep(pause)
      pause = min(pause * 2, 2_000)
    }
    let calls = self.calls
    let locked = fd
    FileLock.holding(path, true)
    // NB: held inside a span of background time, ended with the lock on every path (a release,
    // or the lock's deinit): an app suspended holding it would be killed (see BackgroundTime).
    let span = calls.backgroundTime.begin("Keepsake: writing \(target.lastPathComponent)")
    return FileLock {
      FileLock.holding(path, false)
      _ = calls.flock(locked, LOCK_UN)
      _ = calls.close(locked)
      span.end()
    }
  }
}
