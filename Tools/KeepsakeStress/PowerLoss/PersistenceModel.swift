/// What a file system may have kept of the operations before a power cut: the rules the
/// power-loss campaign enumerates crash states under.
///
/// A cut between two system calls keeps everything an earlier flush made durable; what else it
/// keeps is up to the file system. The two models bracket the file systems Keepsake runs on.
public enum PersistenceModel: String, CaseIterable, Sendable, CustomStringConvertible {
  /// The weakest POSIX allows.
  ///
  /// - Data written to a file and not flushed by an `fsync` of that file may be lost, kept, or
  ///   kept in part: any prefix of the unflushed writes, the next one cut in half, or its range
  ///   zero-filled (the file grew but the bytes never arrived).
  /// - A create, rename, unlink or mkdir is durable only once its folder was flushed with
  ///   `fsync` (both folders, for a rename); until then each one, independently, may or may not
  ///   have happened. An `fsync` of a file does not make its name durable.
  case weakestPOSIX = "posix"

  /// ext4 mounted with `data=ordered` (Linux's default), stronger than POSIX.
  ///
  /// - Metadata goes through one journal in order: what survives is a prefix of every create,
  ///   rename, unlink and mkdir, and any `fsync` (of a file or a folder) commits the journal, so
  ///   everything before it survives.
  /// - A rename is atomic, and the data written to a file before it was renamed reaches the disk
  ///   before the rename does (ext4's `auto_da_alloc` replace-by-rename rule).
  /// - Other unflushed data may be lost or kept as a prefix of whole writes, or of 4 KiB blocks
  ///   of a longer write; it is never zero-filled (the journal commits a file's new size only
  ///   after its data).
  case ext4Ordered = "ext4-ordered"

  public var description: String { rawValue }
}
