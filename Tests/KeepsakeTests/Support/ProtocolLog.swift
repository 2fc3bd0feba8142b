import Foundation
@_spi(Testing) import Keepsake
import KeepsakeStress

/// A recorded log as lines a test can compare: paths relative to the folder, temporary files
/// named after their target, reads and waits for another holder's lock left out.
struct ProtocolLog {
  typealias Record = SystemCallRecorder.Record

  let records: [Record]
  let lines: [String]
  private let relative: @Sendable (String) -> String

  init(_ all: [Record], folder: URL, names: [String: String] = [:]) {
    let root = folder.resolvingSymlinksInPath().path
    let relative: @Sendable (String) -> String = { path in
      var path = path
      if path == root { return "." }
      if path.hasPrefix(root + "/") { path = String(path.dropFirst(root.count + 1)) }
      for (name, replacement) in names {
        path = path.replacingOccurrences(of: name, with: replacement)
      }
      var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      if let last = components.last, let range = last.range(of: ".keepsake-tmp-") {
        components[components.count - 1] =
          "<tmp of \(last[last.index(after: last.startIndex)..<range.lowerBound])>"
      }
      return components.joined(separator: "/")
    }
    var kept: [Record] = []
    var reads: Set<Int32> = []
    for record in all {
      switch record.call {
      // NB: a read-only open that may create the file (a lock file's) is kept, with its close.
      case .open(let path, let flags, let fd)
      where flags & O_ACCMODE == O_RDONLY && flags & O_CREAT == 0:
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue
        {
          kept.append(record)
        } else if fd >= 0 {
          reads.insert(fd)
        }
      case .close(_, let fd) where reads.contains(fd):
        reads.remove(fd)
      case .flock where record.error == EWOULDBLOCK:
        // Another holder had the lock: the protocol waits and tries again.
        break
      case .listAttributes, .getAttribute, .protectionClass:
        // Reads of the metadata a save carries over.
        break
      default:
        kept.append(record)
      }
    }
    self.records = kept
    self.relative = relative
    self.lines = kept.map { record in
      Self.line(record, relative: relative)
    }
  }

  private static func line(_ record: Record, relative: (String) -> String) -> String {
    var copy = record
    switch record.call {
    case .open(let path, let flags, let fd):
      copy.call = .open(path: relative(path), flags: flags, fd: fd)
    case .write(let path, let fd, let offset, let bytes):
      copy.call = .write(path: relative(path), fd: fd, offset: offset, bytes: bytes)
    case .fsync(let path, let fd): copy.call = .fsync(path: relative(path), fd: fd)
    case .close(let path, let fd): copy.call = .close(path: relative(path), fd: fd)
    case .rename(let from, let to): copy.call = .rename(from: relative(from), to: relative(to))
    case .exchange(let first, let second):
      copy.call = .exchange(first: relative(first), second: relative(second))
    case .link(let from, let to): copy.call = .link(from: relative(from), to: relative(to))
    case .unlink(let path): copy.call = .unlink(path: relative(path))
    case .mkdir(let path): copy.call = .mkdir(path: relative(path))
    case .fchmod(let path, let fd, let mode):
      copy.call = .fchmod(path: relative(path), fd: fd, mode: mode)
    case .flock(let path, let fd, let operation):
      copy.call = .flock(path: relative(path), fd: fd, operation: operation)
    case .fchown(let path, let fd, let owner, let group):
      copy.call = .fchown(path: relative(path), fd: fd, owner: owner, group: group)
    case .setAttribute(let path, let fd, let name, let bytes):
      copy.call = .setAttribute(path: relative(path), fd: fd, name: name, bytes: bytes)
    case .setProtectionClass(let path, let fd, let protectionClass):
      copy.call = .setProtectionClass(
        path: relative(path), fd: fd, protectionClass: protectionClass)
    case .listAttributes, .getAttribute, .protectionClass, .mark: break
    }
    return copy.description
  }

  /// Everything written to `name` (a relative name, as in ``lines``), in order.
  func bytesWritten(to name: String) -> Data {
    var data = Data()
    for record in records {
      if case .write(let path, _, _, let bytes) = record.call, relative(path) == name {
        data.append(bytes)
      }
    }
    return data
  }

  /// The calls that opened `name` for writing or wrote to it in place: the rule "Writes are
  /// atomic and durable" allows none.
  func writesInPlace(of name: String) -> [String] {
    records.compactMap { record in
      switch record.call {
      case .open(let path, let flags, _)
      where relative(path) == name && flags & O_ACCMODE != O_RDONLY:
        return record.description
      case .write(let path, _, _, _) where relative(path) == name:
        return record.description
      default:
        return nil
      }
    }
  }
}
