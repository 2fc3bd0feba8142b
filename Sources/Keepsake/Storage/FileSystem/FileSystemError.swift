import Foundation

/// A file operation that failed, with the file and the reason.
public struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The operation that failed.
  public var operation: FileOperation
  /// The path the operation was working on.
  public var path: String
  /// Why it failed.
  public var reason: Reason

  /// Why a file operation failed.
  public enum Reason: Equatable, Sendable, CustomStringConvertible {
    /// The disk is full (`ENOSPC`).
    case diskFull
    /// Permission denied (`EACCES`, `EPERM`, or a read-only file system).
    case permissionDenied
    /// A low-level input/output error (`EIO`).
    case ioError
    /// Fewer bytes were written than asked for.
    case shortWrite(written: Int, expected: Int)
    /// Another process held the file's lock for the whole wait.
    case lockTimedOut(seconds: Int)
    /// Any other `errno`.
    case posix(code: Int32)
    /// The path names something other than a regular file, which is refused without reading
    /// it (data-safety rule "Bad files get a clear error at once"; see the Data safety article).
    ///
    /// `kind` says what was found, as an indefinite noun: "a FIFO", "a character device",
    /// "a block device", "a socket", "a directory" or "a special file".
    case notARegularFile(kind: String)
    /// The file is larger than the limit it was read with, in bytes; it was refused without being
    /// read whole (data-safety rule "Bad files get a clear error at once"; see the Data safety
    /// article).
    ///
    /// For a file that grew past the limit while it was read, `size` is its size when that was
    /// noticed.
    case tooLarge(size: Int64, limit: Int)
    /// The path is a loop of symbolic links (`ELOOP`): following them never reaches a file.
    case linkLoop

    public var description: String {
      switch self {
      case .diskFull: return "the disk is full"
      case .permissionDenied: return "permission denied"
      case .ioError: return "an input/output error"
      case .shortWrite(let written, let expected):
        return "only \(written) of \(expected) bytes were written"
      case .lockTimedOut(let seconds):
        return "another process held its lock for \(seconds) seconds; nothing was written"
      case .posix(let code): return String(cString: strerror(code))
      case .notARegularFile(let kind):
        return
          "it is \(kind), not a regular file, so it was not read and was left untouched; "
          + "remove it or point the key at a file"
      case .tooLarge(let size, let limit):
        return
          "the file is \(Self.bytes(size)), more than the limit of \(Self.bytes(Int64(limit))), "
          + "so it was not read and was left untouched; move it aside or raise the limit"
      case .linkLoop:
        return
          "the path is a loop of symbolic links that never reaches a file, so nothing was read "
          + "and the links were left untouched; fix or remove one of them"
      }
    }

    /// A byte count, with its size in MiB when that is easier to read.
    private static func bytes(_ count: Int64) -> String {
      let mebibyte: Int64 = 1024 * 1024
      guard count >= mebibyte else { return "\(count) bytes" }
      // Computed in two parts so no count can overflow.
      let tenths = count / mebibyte * 10 + count % mebibyte * 10 / mebibyte
      return "\(count) bytes (\(tenths / 10).\(tenths % 10) MiB)"
    }

    /// Maps an `errno` value to a reason.
    package init(errno code: Int32) {
      switch code {
      case ENOSPC, EDQUOT: self = .diskFull
      case EACCES, EPERM, EROFS: self = .permissionDenied
      case EIO: self = .ioError
      case ELOOP: self = .linkLoop
      default: self = .posix(code: code)
      }
    }
  }

  /// Creates an error.
  package init(_ operation: FileOperation, path: String, reason: Reason) {
    self.operation = operation
    self.path = path
    self.reason = reason
  }

  public var description: String {
    "Could not \(operation.verb) \(path): \(reason)."
  }
}

extension FileSystemError: DescribesUntouchedData {
  /// The reasons for refusing a bad file say that it was left untouched (rule "Bad files get a
  /// clear error at once").
  var saysDataIsUntouched: Bool {
    switch reason {
    case .notARegularFile, .tooLarge, .linkLoop: true
    case .diskFull, .permissionDenied, .ioError, .shortWrite, .lockTimedOut, .posix: false
    }
  }
}

/// The primitive file operations, named so faults can target each one.
public enum FileOperation: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
  /// Reading a file's bytes.
  case read
  /// Writing bytes into a (temporary) file.
  case write
  /// Flushing a file or folder to stable storage.
  case fsync
  /// Renaming a file over another.
  case rename
  /// Removing a file.
  case remove
  /// Creating a folder.
  case createFolder
  /// Listing a folder.
  case list
  /// Taking the exclusive cross-process lock of a file.
  case lock

  var verb: String {
    switch self {
    case .read: return "read"
    case .write: return "write"
    case .fsync: return "flush to disk"
    case .rename: return "rename into place"
    case .remove: return "remove"
    case .createFolder: return "create the folder"
    case .list: return "list"
    case .lock: return "lock"
    }
  }

  public var description: String { rawValue }
}
