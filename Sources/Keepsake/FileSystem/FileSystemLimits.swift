/// Bounds on what Keepsake reads from a file system, and on the names it makes there.
///
/// A key's file is read whole into memory to decode it, so a file far larger than any saved
/// value could be (a log file or a disk image at the key's path, a store gone wrong) would
/// exhaust the app's memory. Such a file is refused with
/// ``FileSystemError/Reason/tooLarge(size:limit:)`` before a byte of it is read, and left as it
/// is (data-safety rule "Bad files get a clear error at once"; see the Data safety article).
@usableFromInline package enum FileSystemLimits {
  /// The size above which ``FileSystem/contents(of:)`` refuses a file: 256 MiB.
  ///
  /// Generous on purpose: a drafts inbox of 100,000 drafts is about 20 MB, so real data stays
  /// an order of magnitude below the limit, while a runaway file is stopped well before it
  /// could take a phone's or a small server's memory. A file system reads at most this many
  /// bytes plus one, even from a file that grows while it is read.
  @usableFromInline package static let defaultMaximumFileSize: Int = 256 * 1024 * 1024

  /// The longest name of a file or folder, in UTF-8 bytes: `NAME_MAX` of ext4, XFS, Btrfs and
  /// APFS.
  ///
  /// A key whose file's name is longer is refused when it is created
  /// (``FileSystemError/Reason/nameTooLong(name:length:limit:)``); the names Keepsake makes
  /// beside a file are shortened to fit (see `FileName`).
  static let maximumNameLength = 255

  /// The longest path the system calls accept, in bytes, terminator excluded (`PATH_MAX - 1`).
  #if canImport(Darwin)
    static let maximumPathLength = 1023
  #else
    static let maximumPathLength = 4095
  #endif

  /// Why `path` is over these limits: its first name longer than ``maximumNameLength``, else
  /// the whole path longer than ``maximumPathLength``; `nil` when it is within them.
  ///
  /// Examined as bytes, without a system call: a key checks its path when it is made.
  static func excess(of path: String) -> FileSystemError.Reason? {
    if let range = PathScan.firstComponent(of: path, longerThan: maximumNameLength) {
      return .nameTooLong(
        name: PathScan.part(of: path, range), length: range.count, limit: maximumNameLength)
    }
    let length = path.utf8.count
    guard length > maximumPathLength else { return nil }
    return .pathTooLong(length: length, limit: maximumPathLength)
  }
}
