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
      }
    }

    /// Maps an `errno` value to a reason.
    public init(errno code: Int32) {
      switch code {
      case ENOSPC, EDQUOT: self = .diskFull
      case EACCES, EPERM, EROFS: self = .permissionDenied
      case EIO: self = .ioError
      default: self = .posix(code: code)
      }
    }
  }

  /// Creates an error.
  public init(_ operation: FileOperation, path: String, reason: Reason) {
    self.operation = operation
    self.path = path
    self.reason = reason
  }

  public var description: String {
    "Could not \(operation.verb) \(path): \(reason)."
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
