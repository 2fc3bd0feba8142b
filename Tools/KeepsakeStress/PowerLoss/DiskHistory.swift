import Foundation
@_spi(Testing) import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A recorded log of system calls turned into what a file system persists: names pointing at
/// inodes, bytes written into inodes, and flushes.
///
/// Descriptors are followed to the inode they were opened on, so a write to a temporary file is
/// still that file's after it was renamed. Failed calls changed nothing and are left out; reads,
/// `fchmod` and locks change no bytes and no names, and are left out too.
struct DiskHistory: Sendable {
  /// One persistable operation.
  enum Operation: Sendable, Equatable {
    /// `path` now names `inode` (a file was created).
    case link(path: String, inode: Int)
    /// A folder was created at `path`.
    case mkdir(path: String)
    /// `to` now names `inode`, which `from` named.
    case rename(from: String, to: String, inode: Int)
    /// `first` now names `secondInode` and `second` names `firstInode`, in one step.
    case exchange(first: String, second: String, firstInode: Int, secondInode: Int)
    /// `path` names nothing any more.
    case unlink(path: String)
    /// `bytes` were written into `inode` at `offset`.
    case write(inode: Int, offset: Int, bytes: Data)
    /// `inode` was truncated to nothing (`O_TRUNC`).
    case truncate(inode: Int)
    /// An `fsync` (or `F_FULLFSYNC`) of the file `inode`.
    case syncFile(inode: Int)
    /// An `fsync` of the folder at `path`.
    case flushFolder(path: String)
    /// A label the session put in the log (``SystemCallRecorder/mark(_:)``).
    case mark(String)

    /// The folders whose entries this operation changes, for a metadata operation.
    var folders: [String]? {
      switch self {
      case .link(let path, _), .mkdir(let path), .unlink(let path): return [Self.parent(path)]
      case .rename(let from, let to, _), .exchange(let from, let to, _, _):
        return Array(Set([Self.parent(from), Self.parent(to)]))
      default: return nil
      }
    }

    /// Whether a metadata operation names something under `root`; others cannot change what
    /// is materialised there.
    func isUnder(_ root: String) -> Bool {
      let paths: [String]
      switch self {
      case .link(let path, _), .mkdir(let path), .unlink(let path): paths = [path]
      case .rename(let from, let to, _), .exchange(let from, let to, _, _): paths = [from, to]
      default: return false
      }
      return paths.contains { $0.hasPrefix(root + "/") }
    }

    /// The inode of a data operation.
    var dataInode: Int? {
      switch self {
      case .write(let inode, _, _), .truncate(let inode): return inode
      default: return nil
      }
    }

    static func parent(_ path: String) -> String {
      (path as NSString).deletingLastPathComponent
    }
  }

  /// The folder the session ran in; only what is under it is materialised and checked.
  var root: String
  /// What was under the root when recording began, taken as durable.
  var initial: DiskImage
  /// The inode of each file of ``initial`` (by path relative to the root).
  var initialInodes: [String: Int]
  /// The operations, in the order they happened.
  var operations: [Operation]
  /// A description of the system call each operation came from, for reports.
  var sources: [String]

  /// Replays `records`, made in the folder `root` which held `initial` when they began.
  init(records: [SystemCallRecorder.Record], root: String, initial: DiskImage) {
    self.root = root
    self.initial = initial
    var names: [String: Int] = [:]
    var folders: Set<String> = [root]
    var next = 0
    for folder in initial.folders { folders.insert(Self.absolute(folder, root: root)) }
    var inodes: [String: Int] = [:]
    for path in initial.files.keys.sorted() {
      inodes[path] = next
      names[Self.absolute(path, root: root)] = next
      next += 1
    }
    initialInodes = inodes

    enum Target {
      case file(Int)
      case folder(String)
    }
    var open: [Int32: Target] = [:]
    var operations: [Operation] = []
    var sources: [String] = []
    func append(_ operation: Operation, _ record: SystemCallRecorder.Record) {
      operations.append(operation)
      sources.append(
        record.description.replacingOccurrences(of: root + "/", with: "")
          .replacingOccurrences(of: root, with: "."))
    }
    for record in records where record.succeeded {
      switch record.call {
      case .open(let path, let flags, let fd):
        if folders.contains(path) || (names[path] == nil && Self.isFolderOutside(path, root)) {
          open[fd] = .folder(path)
        } else if let inode = names[path] {
          open[fd] = .file(inode)
          if flags & O_TRUNC != 0 && flags & O_ACCMODE != O_RDONLY {
            append(.truncate(inode: inode), record)
          }
        } else if flags & O_CREAT != 0 {
          names[path] = next
          open[fd] = .file(next)
          append(.link(path: path, inode: next), record)
          next += 1
        }
      case .write(_, let fd, let offset, let bytes):
        if case .file(let inode) = open[fd] {
          append(.write(inode: inode, offset: offset, bytes: bytes), record)
        }
      case .fsync(_, let fd):
        switch open[fd] {
        case .file(let inode): append(.syncFile(inode: inode), record)
        case .folder(let path): append(.flushFolder(path: path), record)
        case nil: break
        }
      case .close(_, let fd):
        open[fd] = nil
      case .rename(let from, let to):
        guard let inode = names[from] else { continue }
        names[to] = inode
        names[from] = nil
        append(.rename(from: from, to: to, inode: inode), record)
      case .exchange(let first, let second):
        guard let firstInode = names[first], let secondInode = names[second] else { continue }
        names[first] = secondInode
        names[second] = firstInode
        append(
          .exchange(
            first: first, second: second, firstInode: firstInode, secondInode: secondInode),
          record)
      case .link(let from, let to):
        guard let inode = names[from] else { continue }
        names[to] = inode
        append(.link(path: to, inode: inode), record)
      case .unlink(let path):
        names[path] = nil
        append(.unlink(path: path), record)
      case .mkdir(let path):
        folders.insert(path)
        append(.mkdir(path: path), record)
      case .mark(let label):
        append(.mark(label), record)
      case .fchmod, .flock, .fchown, .listAttributes, .getAttribute, .setAttribute,
        .protectionClass, .setProtectionClass:
        break
      }
    }
    self.operations = operations
    self.sources = sources
  }

  /// The position just after the mark `label`, or `nil` when it is not in the log.
  func position(after label: String) -> Int? {
    operations.firstIndex(of: .mark(label)).map { $0 + 1 }
  }

  /// `path` relative to the root, or `nil` when it is outside.
  func relative(_ path: String) -> String? {
    guard path.hasPrefix(root + "/") else { return nil }
    return String(path.dropFirst(root.count + 1))
  }

  static func absolute(_ relative: String, root: String) -> String {
    relative.isEmpty ? root : root + "/" + relative
  }

  /// Whether `path`, outside the root, is a folder: the system's temporary folder, say.
  private static func isFolderOutside(_ path: String, _ root: String) -> Bool {
    guard path != root, !path.hasPrefix(root + "/") else { return false }
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      && isFolder.boolValue
  }
}
