/// Bounds on what Keepsake reads from a file system.
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
}
