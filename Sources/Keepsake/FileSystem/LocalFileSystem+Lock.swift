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
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    try lockExclusively(url, timeout: timeout, creatingFolder: true)
  }

  /// The same, creating the lock file's missing folder only when `creatingFolder`.
  func lockExclusively(
    _ url: URL, timeout: Duration, creatingFolder: Bool
  ) throws -> FileLock {
    // NB: beside the file a link leads to, never beside the link: every spelling of one file
    // (through links, `..`, a dangling link whose target a first save creates) shares one lock.
    let target = try resolve(url, for: .lock)
    let path = FileLock.lockFileURL(for: target).path
    // NB: opened for reading: closing a file opened for writing is an event for every process
    // watching the folder, one of the five each transaction made, and `flock` needs
    // no write access, except where it is emulated with byte-range locks (NFS), for which the
    // lock file is opened again for writing. Its folder is made only when it is missing.
    var writable = false
    var fd = try openLockFile(
      path, writable: false, folder: target.deletingLastPathComponent(),
      creatingFolder: creatingFolder)
    // NB: a non-blocking attempt with a short, growing pause, rather than a blocking `flock`,
    // so a stuck holder gives an error after `timeout` instead of hanging the saver forever.
    let deadline = ContinuousClock.now + timeout
    var pause: UInt32 = 50
    while true {
      if calls.flock(fd, LOCK_EX | LOCK_NB) == 0 {
        // The lock is the lock file that is there: one removed or replaced while this process
        // waited (a cleanup of `*.lock`, a sync engine) is a lock nobody else will look at, and
        // the next process would lock the new file. So start over on the file the path names.
        if Self.namesSameFile(fd, path) { break }
        _ = calls.flock(fd, LOCK_UN)
        _ = calls.close(fd)
        guard ContinuousClock.now < deadline else {
          throw FileSystemError(
            .lock, path: path,
            reason: .lockTimedOut(seconds: Int(timeout.components.seconds)))
        }
        fd = try openLockFile(
          path, writable: writable, folder: target.deletingLastPathComponent(),
          creatingFolder: creatingFolder)
        continue
      }
      let code = errno
      if code == EINTR { continue }
      if code == EBADF && !writable {
        _ = calls.close(fd)
        writable = true
        fd = try openLockFile(
          path, writable: true, folder: target.deletingLastPathComponent(),
          creatingFolder: creatingFolder)
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

  /// Opens (creating, and making its folder when missing) the lock file at `path`.
  ///
  /// NB: without following a link (one planted at the lock's name must not make this process
  /// create or lock a file elsewhere) and without blocking (a FIFO there would block `open`
  /// until a writer came: data-safety rule "Bad files get a clear error at once"); anything but
  /// a regular file is refused at once and left as it is.
  private func openLockFile(
    _ path: String, writable: Bool, folder: URL, creatingFolder: Bool
  ) throws -> Int32 {
    let flags =
      (writable ? O_RDWR : O_RDONLY) | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW
    var fd = calls.open(path, flags, 0o644)
    if fd < 0 && errno == ENOENT {
      guard creatingFolder else {
        throw FileSystemError(.lock, path: path, reason: .folderRemoved)
      }
      try createFolder(folder)
      fd = calls.open(path, flags, 0o644)
    }
    guard fd >= 0 else {
      let code = errno
      // A link at the lock's name is refused, never followed.
      if code == ELOOP {
        throw FileSystemError(.lock, path: path, reason: .notARegularFile(kind: "a symbolic link"))
      }
      throw FileSystemError(.lock, path: path, reason: .init(errno: code))
    }
    var info = stat()
    if fstat(fd, &info) == 0, let kind = Self.kind(of: info.st_mode) {
      _ = calls.close(fd)
      throw FileSystemError(.lock, path: path, reason: .notARegularFile(kind: kind))
    }
    return fd
  }

  /// Whether the open file `fd` is the file the path `path` names now (device and inode).
  static func namesSameFile(_ fd: Int32, _ path: String) -> Bool {
    var held = stat()
    var named = stat()
    guard fstat(fd, &held) == 0, lstat(path, &named) == 0 else { return false }
    return held.st_dev == named.st_dev && held.st_ino == named.st_ino
  }
}
