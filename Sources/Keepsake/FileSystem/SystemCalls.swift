import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The system calls through which ``LocalFileSystem`` changes what is on disk, as one seam.
///
/// Every call that creates, writes, flushes, renames or removes a file or a folder, or takes a
/// file's lock, goes through here, so a test can run the real writer with a recorder that logs each
/// call in order and forwards it (see ``SystemCallRecorder``), and prove the protocol of
/// data-safety rule "Writes are atomic and durable" (see the Data safety article) step by step.
/// Reads of bytes, `stat` and directory listings change nothing and call the system directly.
///
/// Each closure has the contract of the call it is named after: it returns what the call returns
/// and leaves `errno` set as the call does.
///
/// NB: a final class, so a ``LocalFileSystem`` holds one reference (it still fits an
/// existential's inline buffer) and copying it costs a retain. The real calls are ``live``: one
/// indirect call per system call, nothing allocated, against the microseconds of the call.
package final class SystemCalls: Sendable {
  /// `open(path, flags, mode)`: a descriptor, or -1.
  package let open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
  /// `pwrite(fd, bytes, count, offset)`: the number of bytes written, or -1.
  package let write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int
  /// Flushes a file to stable storage: `F_FULLFSYNC` where the platform has it, else `fsync`.
  package let fullFsync: @Sendable (_ fd: Int32) -> Int32
  /// `fsync(fd)`: how a folder's entries are flushed.
  package let fsync: @Sendable (_ fd: Int32) -> Int32
  /// `close(fd)`.
  package let close: @Sendable (_ fd: Int32) -> Int32
  /// `rename(from, to)`.
  package let rename: @Sendable (_ from: String, _ to: String) -> Int32
  /// `link(from, to)`, following a link at `from`: gives the file at `from` the new name `to`,
  /// failing with `EEXIST` rather than replace anything there.
  package let link: @Sendable (_ from: String, _ to: String) -> Int32
  /// `unlink(path)`.
  package let unlink: @Sendable (_ path: String) -> Int32
  /// `mkdir(path, mode)`.
  package let mkdir: @Sendable (_ path: String, _ mode: mode_t) -> Int32
  /// `fchmod(fd, mode)`.
  package let fchmod: @Sendable (_ fd: Int32, _ mode: mode_t) -> Int32
  /// `flock(fd, operation)`.
  package let flock: @Sendable (_ fd: Int32, _ operation: Int32) -> Int32

  /// A set of calls; ``live`` is the real one.
  package init(
    open: @escaping @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32,
    write: @escaping @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int,
    fullFsync: @escaping @Sendable (_ fd: Int32) -> Int32,
    fsync: @escaping @Sendable (_ fd: Int32) -> Int32,
    close: @escaping @Sendable (_ fd: Int32) -> Int32,
    rename: @escaping @Sendable (_ from: String, _ to: String) -> Int32,
    link: @escaping @Sendable (_ from: String, _ to: String) -> Int32,
    unlink: @escaping @Sendable (_ path: String) -> Int32,
    mkdir: @escaping @Sendable (_ path: String, _ mode: mode_t) -> Int32,
    fchmod: @escaping @Sendable (_ fd: Int32, _ mode: mode_t) -> Int32,
    flock: @escaping @Sendable (_ fd: Int32, _ operation: Int32) -> Int32
  ) {
    self.open = open
    self.write = write
    self.fullFsync = fullFsync
    self.fsync = fsync
    self.close = close
    self.rename = rename
    self.link = link
    self.unlink = unlink
    self.mkdir = mkdir
    self.fchmod = fchmod
    self.flock = flock
  }

  /// The real system calls.
  package static let live = SystemCalls(
    open: { path, flags, mode in systemOpen(path, flags, mode) },
    write: { fd, bytes, offset in
      guard let base = bytes.baseAddress else { return 0 }
      return pwrite(fd, base, bytes.count, off_t(offset))
    },
    fullFsync: { fd in
      // NB: on Apple platforms `fsync` only hands the data to the drive, whose cache may still
      // lose it on power loss; `F_FULLFSYNC` asks the drive to write it through. File systems
      // that do not support it fail the call, and `fsync` is then the best available.
      #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
      #endif
      return systemFsync(fd)
    },
    fsync: { fd in systemFsync(fd) },
    close: { fd in systemClose(fd) },
    rename: { from, to in systemRename(from, to) },
    link: { from, to in systemLink(from, to) },
    unlink: { path in systemUnlink(path) },
    mkdir: { path, mode in systemMkdir(path, mode) },
    fchmod: { fd, mode in systemFchmod(fd, mode) },
    flock: { fd, operation in systemFlock(fd, operation) })
}

// NB: the closures above are named like the calls they wrap; these names reach the C functions
// from inside them without the closures' own names shadowing them.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemLink(_ from: String, _ to: String) -> Int32 {
  linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW)
}
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemMkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func systemFchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
private func systemFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
