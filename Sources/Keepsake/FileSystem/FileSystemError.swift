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
    /// The value encodes to `size` bytes, more than the `limit` its key reads, so it was not
    /// written: a key never writes a file it would refuse to read (see the Data safety article).
    case valueTooLarge(size: Int, limit: Int)
    /// A name in the path is longer than the file system allows (`limit` bytes in UTF-8); the key
    /// is refused when it is created, before anything is read or written.
    case nameTooLong(name: String, length: Int, limit: Int)
    /// The path is longer than the system calls accept (`limit` bytes); the key is refused when
    /// it is created, before anything is read or written.
    case pathTooLong(length: Int, limit: Int)
    /// A name on the way to the file (the target of a symbolic link) is not valid UTF-8, so it
    /// cannot be named exactly; `name` shows its bytes, with `\xNN` for those that are not.
    case nameNotUTF8(name: String)
    /// Something already has the name a new file was to get (`EEXIST`); nothing was replaced.
    case alreadyExists
    /// This process itself held the file's lock for the whole wait: another storage context, or
    /// a transaction that is waiting for this save.
    case lockHeldByThisProcess(seconds: Int)
    /// The file is in iCloud Drive but not downloaded to this device yet: a placeholder
    /// (`.name.icloud`) stands beside it, or it is dataless. It was not read, nothing is saved
    /// over it, a download was asked for, and the key loads it once it arrives.
    case notDownloaded
    /// Another program replaced, edited or removed the file while this save was being written;
    /// nothing was written over what it left, and the save reads it and merges with it.
    case replacedMeanwhile
    /// The file's folder was removed after the key had read or written the file there. The key
    /// never creates it again (it was removed on purpose, or its volume is gone): nothing was
    /// written, and the change is kept.
    case folderRemoved

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
      case .valueTooLarge(let size, let limit):
        return
          "the value is \(Self.bytes(Int64(size))) once encoded, more than the key's "
          + "maximumFileSize of \(Self.bytes(Int64(limit))), which it could not read back, so "
          + "nothing was written and the file is as it was; store less or raise maximumFileSize"
      case .nameTooLong(let name, let length, let limit):
        return
          "the name \(Self.abbreviated(name)) is \(length) bytes long, more than the \(limit) "
          + "bytes a file system allows, so nothing was read or written; use a shorter name"
      case .pathTooLong(let length, let limit):
        return
          "the path is \(length) bytes long, more than the \(limit) bytes the system accepts, so "
          + "nothing was read or written; use a shorter path"
      case .nameNotUTF8(let name):
        return
          "the name \(name) on the way to the file is not valid UTF-8, so the file cannot be "
          + "named exactly and nothing was read or written; rename it to a UTF-8 name"
      case .alreadyExists:
        return "something already has that name, and it was left as it was"
      case .lockHeldByThisProcess(let seconds):
        return
          "this process itself held the file's lock for \(seconds) seconds (another storage "
          + "context, or a transaction waiting for this save); nothing was written"
      case .notDownloaded:
        return
          "it is not downloaded yet from iCloud, so it was not read and nothing is saved over "
          + "it; it loads once it is downloaded"
      case .replacedMeanwhile:
        return
          "another program changed the file while it was being saved, so nothing was written "
          + "over its change"
      case .folderRemoved:
        return
          "its folder was removed, so the folder was not created again and nothing was written; "
          + "the change is kept"
      }
    }

    /// `name`, or its start and end around an ellipsis when it is too long to read in a message.
    private static func abbreviated(_ name: String) -> String {
      guard name.count > 60 else { return "'\(name)'" }
      return "'\(name.prefix(40))…\(name.suffix(12))'"
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
    init(errno code: Int32) {
      switch code {
      case ENOSPC, EDQUOT: self = .diskFull
      case EACCES, EPERM, EROFS: self = .permissionDenied
      case EIO: self = .ioError
      case ELOOP: self = .linkLoop
      case EEXIST: self = .alreadyExists
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
    "Could not \(operation.verb) \(path): \(reason)\(advice)."
  }

  /// What to do about a reason that does not say it itself (data-safety rule "Errors are typed
  /// and say what to do").
  private var advice: String {
    // NB: a write, a rename or a folder made for it fails before the file is replaced, so the
    // file is as it was; a failed flush of the folder comes after the rename, and says less.
    let untouched = [.write, .rename, .createFolder].contains(operation)
    switch (operation, reason) {
    case (.lock, .posix(EISDIR)):
      return
        "; that is a folder, where Keepsake keeps the lock of the file beside it, so nothing was "
        + "written: move the folder away"
    case (.lock, .posix(ENOTDIR)):
      return
        "; something on the way to the lock file Keepsake keeps beside the file is not a folder, "
        + "so nothing was written: check the path"
    case (.lock, .permissionDenied):
      return
        "; Keepsake keeps the lock of a file in a file beside it, so nothing was written: allow "
        + "this user to create and write files in the folder"
    case (.lock, .lockTimedOut):
      return ": try again once it has finished, or end the process that is stuck holding it"
    case (.lock, .lockHeldByThisProcess):
      return
        ": do not save a file from inside a transaction on the same file in another storage "
        + "context"
    case (.read, .permissionDenied), (.list, .permissionDenied):
      return "; nothing was changed: allow this user to read the file and its folder"
    case (_, .permissionDenied):
      return
        (untouched ? "; the file is as it was" : "")
        + ": allow this user to write the file and its folder (a read-only file system or an "
        + "immutable file, see lsattr, refuses it too)"
    case (_, .diskFull):
      return (untouched ? "; the file is as it was" : "") + ": free some space and save again"
    case (_, .shortWrite):
      return (untouched ? "; the file is as it was" : "") + ": the disk may be full"
    case (_, .posix(EFBIG)):
      return
        (untouched ? "; the file is as it was" : "")
        + ": a limit on file sizes was reached (this process's ulimit -f, or the file system's)"
    case (_, .ioError):
      return
        (untouched ? "; the file is as it was" : "")
        + ": the disk may be failing; copy the data somewhere safe"
    case (_, .posix(EISDIR)) where untouched:
      return "; a folder has the file's name, and it was left as it was: move it away"
    case (_, .posix):
      return untouched ? "; the file is as it was" : ""
    default:
      return ""
    }
  }
}

extension FileSystemError: DescribesUntouchedData {
  /// A name or path the system cannot take is a problem of the key's path, not of its data.
  var isAboutThePath: Bool {
    switch reason {
    // NB: a file not downloaded yet is not damaged either: restoring it or starting over is
    // not what to do, waiting is (the reason says so).
    case .nameTooLong, .pathTooLong, .nameNotUTF8, .notDownloaded: true
    default: false
    }
  }

  /// The reasons for refusing a bad file say that it was left untouched (rule "Bad files get a
  /// clear error at once").
  var saysDataIsUntouched: Bool {
    switch reason {
    case .notARegularFile, .tooLarge, .linkLoop, .valueTooLarge, .nameTooLong, .pathTooLong,
      .nameNotUTF8, .alreadyExists, .notDownloaded, .replacedMeanwhile, .folderRemoved:
      true
    case .diskFull, .permissionDenied, .ioError, .shortWrite, .lockTimedOut,
      .lockHeldByThisProcess, .posix:
      false
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
