import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The file a save wrote, held open for reading, so its identity is taken from the file itself
/// once it is in place: a look at the name could find a file a program put there since.
final class WrittenFile {
  private let fd: Int32
  /// The identity of the bytes written, before the rename that puts them in place.
  private let written: FileIdentity?

  /// Opens the temporary file at `path`, written and flushed, before it takes the file's name;
  /// `-1` (an identity of `nil` later) when it cannot.
  init(path: String) {
    // NB: not through the system calls a test records: a read-only look changes nothing.
    fd = open(path, O_RDONLY | O_CLOEXEC)
    var info = stat()
    written = fd >= 0 && fstat(fd, &info) == 0 ? LocalFileSystem.identity(info) : nil
  }

  /// The identity the next look compares the file with: the file's now, its change time moved
  /// by the rename that put it in place.
  ///
  /// A program that wrote the file in place once it had the name (an editor that ignores the
  /// lock, `cp` over it), before this look, changed its size or its time: it is not the version
  /// written, and the identity of the bytes written is given instead, which is not the file's,
  /// so the next look reads the file and merges what the program wrote rather than write over
  /// it unseen.
  func identity() -> FileIdentity? {
    var info = stat()
    guard fd >= 0, fstat(fd, &info) == 0 else { return nil }
    let now = LocalFileSystem.identity(info)
    return now.isSameVersion(as: written) ? now : written
  }

  deinit { if fd >= 0 { close(fd) } }
}
