import Foundation
import Keepsake
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records every system call a ``LocalFileSystem`` makes through ``SystemCalls``, in order and
/// with its paths, and forwards it to the real one (or fails it, when told to).
///
/// For tests of the durable-write protocol (data-safety rule "Writes are atomic and durable"; see
/// the Data safety article) and for the power-loss campaign, which replays the log to find every
/// state a power cut could leave:
///
/// ```swift
/// let recorder = SystemCallRecorder()
/// let fileSystem = LocalFileSystem(calls: recorder.calls)
/// try fileSystem.writeAtomically(data, to: url)
/// recorder.records  // open(tmp, O_WRONLY|O_CREAT|O_EXCL), write, fsync, close, rename, ...
/// ```
public final class SystemCallRecorder: Sendable {
  /// One call, with what it did.
  public struct Record: Sendable, Equatable, CustomStringConvertible {
    /// The call and its arguments; descriptors are given with the path they were opened on.
    public enum Call: Sendable, Equatable {
      case open(path: String, flags: Int32, fd: Int32)
      /// The bytes the call wrote (all of them, or the part a short write wrote).
      case write(path: String, fd: Int32, offset: Int, bytes: Data)
      /// A file's or a folder's flush, through ``SystemCall/fullFlush(fd:)`` (`F_FULLFSYNC` where
      /// the platform has it, else `fsync`).
      case fsync(path: String, fd: Int32)
      case close(path: String, fd: Int32)
      case rename(from: String, to: String)
      /// The files named `first` and `second` swapped (``SystemCall/exchange(first:second:)``).
      case exchange(first: String, second: String)
      /// A new name `to` for the file at `from`.
      case link(from: String, to: String)
      case unlink(path: String)
      case mkdir(path: String)
      case fchmod(path: String, fd: Int32, mode: mode_t)
      case flock(path: String, fd: Int32, operation: Int32)
      case fchown(path: String, fd: Int32, owner: uid_t, group: gid_t)
      /// The names of a file's extended attributes (`listxattr`).
      case listAttributes(path: String)
      /// One extended attribute's value (`getxattr`).
      case getAttribute(path: String, name: String)
      /// An extended attribute set on an open file (`fsetxattr`), with its value.
      case setAttribute(path: String, fd: Int32, name: String, bytes: Data)
      /// A file's Data Protection class, read by path.
      case protectionClass(path: String)
      /// A Data Protection class given to an open file.
      case setProtectionClass(path: String, fd: Int32, protectionClass: Int32)
      /// Not a call: a label the caller put in the log (``mark(_:)``).
      case mark(String)
    }

    /// The call.
    public var call: Call
    /// The `errno` it failed with, or 0 when it succeeded.
    public var error: Int32

    /// Whether the call succeeded.
    public var succeeded: Bool { error == 0 }

    public var description: String {
      let outcome = error == 0 ? "" : " -> \(String(cString: strerror(error)))"
      switch call {
      case .open(let path, let flags, _): return "open \(path) \(Self.flags(flags))\(outcome)"
      case .write(let path, _, let offset, let bytes):
        return "write \(path) \(offset)..<\(offset + bytes.count)\(outcome)"
      case .fsync(let path, _): return "fullfsync \(path)\(outcome)"
      case .close(let path, _): return "close \(path)\(outcome)"
      case .rename(let from, let to): return "rename \(from) \(to)\(outcome)"
      case .exchange(let first, let second): return "exchange \(first) \(second)\(outcome)"
      case .link(let from, let to): return "link \(from) \(to)\(outcome)"
      case .unlink(let path): return "unlink \(path)\(outcome)"
      case .mkdir(let path): return "mkdir \(path)\(outcome)"
      case .fchmod(let path, _, let mode):
        return "fchmod \(path) \(String(mode, radix: 8))\(outcome)"
      case .flock(let path, _, let operation):
        return "flock \(path) \(Self.lockOperation(operation))\(outcome)"
      case .fchown(let path, _, let owner, let group):
        return "fchown \(path) \(owner):\(group)\(outcome)"
      case .listAttributes(let path): return "listxattr \(path)\(outcome)"
      case .getAttribute(let path, let name): return "getxattr \(path) \(name)\(outcome)"
      case .setAttribute(let path, _, let name, let bytes):
        return "fsetxattr \(path) \(name) \(bytes.count) bytes\(outcome)"
      case .protectionClass(let path): return "getclass \(path)\(outcome)"
      case .setProtectionClass(let path, _, let protectionClass):
        return "setclass \(path) \(protectionClass)\(outcome)"
      case .mark(let label): return "-- \(label)"
      }
    }

    /// The flags of an `open`, as their names (`O_WRONLY|O_CREAT|O_EXCL`); `O_CLOEXEC`,
    /// `O_NONBLOCK` and `O_NOCTTY` are left out, as they change nothing on disk.
    public static func flags(_ flags: Int32) -> String {
      var names: [String] = []
      switch flags & O_ACCMODE {
      case O_WRONLY: names.append("O_WRONLY")
      case O_RDWR: names.append("O_RDWR")
      default: names.append("O_RDONLY")
      }
      if flags & O_CREAT != 0 { names.append("O_CREAT") }
      if flags & O_EXCL != 0 { names.append("O_EXCL") }
      if flags & O_TRUNC != 0 { names.append("O_TRUNC") }
      if flags & O_APPEND != 0 { names.append("O_APPEND") }
      return names.joined(separator: "|")
    }

    private static func lockOperation(_ operation: Int32) -> String {
      var names: [String] = []
      if operation & LOCK_EX != 0 { names.append("LOCK_EX") }
      if operation & LOCK_SH != 0 { names.append("LOCK_SH") }
      if operation & LOCK_UN != 0 { names.append("LOCK_UN") }
      if operation & LOCK_NB != 0 { names.append("LOCK_NB") }
      return names.joined(separator: "|")
    }
  }

  private struct State {
    var records: [Record] = []
    /// The path each open descriptor was opened on.
    var paths: [Int32: String] = [:]
  }

  private let state = Mutex(State())
  /// Decides, before each call, whether it fails instead (an `errno`) or goes to the system
  /// (`nil`).
  private let fault: @Sendable (Record.Call) -> Int32?

  /// A recorder that forwards every call, or fails those `fault` returns an `errno` for.
  ///
  /// A failed call is not forwarded: it changes nothing, is logged with its error, and returns
  /// -1 with `errno` set, as the system's would. `fault` sees a write with all its bytes.
  public init(fault: @escaping @Sendable (Record.Call) -> Int32? = { _ in nil }) {
    self.fault = fault
  }

  /// Every call so far, in order.
  public var records: [Record] { state.withLock { $0.records } }

  /// Puts `label` in the log between the calls before and after it.
  public func mark(_ label: String) {
    state.withLock { $0.records.append(Record(call: .mark(label), error: 0)) }
  }

  /// Forgets the calls so far (descriptors still open stay known).
  public func clear() {
    state.withLock { $0.records.removeAll() }
  }

  /// The calls to give a ``LocalFileSystem``: each is logged and forwarded to ``SystemCalls/live``.
  package var calls: SystemCalls {
    SystemCalls { [self] call in forward(call) }
  }

  /// Logs `call` and makes it (or fails it).
  private func forward(_ call: SystemCall) -> Int {
    let live = SystemCalls.live.perform
    switch call {
    case .open(let path, let flags, _):
      return perform(.open(path: path, flags: flags, fd: -1)) {
        live(call)
      } record: { fd in
        .open(path: path, flags: flags, fd: Int32(truncatingIfNeeded: fd))
      }
    case .write(let fd, let bytes, let offset):
      let path = self.path(of: fd)
      return perform(.write(path: path, fd: fd, offset: offset, bytes: Data(bytes))) {
        live(call)
      } record: { count in
        .write(path: path, fd: fd, offset: offset, bytes: Data(bytes.prefix(max(count, 0))))
      }
    case .close(let fd):
      defer { _ = state.withLock { $0.paths.removeValue(forKey: fd) } }
      return perform(.close(path: path(of: fd), fd: fd)) { live(call) }
    default:
      return perform(logged(call)) { live(call) }
    }
  }

  /// How `call` is logged: descriptors with the path they were opened on.
  private func logged(_ call: SystemCall) -> Record.Call {
    switch call {
    case .open(let path, let flags, _): .open(path: path, flags: flags, fd: -1)
    case .write(let fd, let bytes, let offset):
      .write(path: path(of: fd), fd: fd, offset: offset, bytes: Data(bytes))
    case .fullFlush(let fd): .fsync(path: path(of: fd), fd: fd)
    case .close(let fd): .close(path: path(of: fd), fd: fd)
    case .rename(let from, let to): .rename(from: from, to: to)
    case .exchange(let first, let second): .exchange(first: first, second: second)
    case .link(let from, let to): .link(from: from, to: to)
    case .unlink(let path): .unlink(path: path)
    case .mkdir(let path, _): .mkdir(path: path)
    case .fchmod(let fd, let mode): .fchmod(path: path(of: fd), fd: fd, mode: mode)
    case .flock(let fd, let operation):
      .flock(path: path(of: fd), fd: fd, operation: operation)
    case .fchown(let fd, let owner, let group):
      .fchown(path: path(of: fd), fd: fd, owner: owner, group: group)
    case .listAttributes(let path, _): .listAttributes(path: path)
    case .getAttribute(let path, let name, _): .getAttribute(path: path, name: name)
    case .setAttribute(let fd, let name, let bytes):
      .setAttribute(path: path(of: fd), fd: fd, name: name, bytes: Data(bytes))
    case .protectionClass(let path): .protectionClass(path: path)
    case .setProtectionClass(let fd, let protectionClass):
      .setProtectionClass(path: path(of: fd), fd: fd, protectionClass: protectionClass)
    }
  }

  private func path(of fd: Int32) -> String {
    state.withLock { $0.paths[fd] } ?? "fd \(fd)"
  }

  /// Runs (or fails) one call and logs it, keeping the call's `errno` for the caller.
  private func perform(
    _ call: Record.Call, _ body: () -> Int, record: ((Int) -> Record.Call)? = nil
  ) -> Int {
    if let injected = fault(call) {
      state.withLock { $0.records.append(Record(call: call, error: injected)) }
      errno = injected
      return -1
    }
    let result = body()
    // NB: read at once: the log's lock may make system calls of its own that change errno.
    let code = result < 0 ? errno : 0
    let recorded = record?(result) ?? call
    state.withLock { state in
      if case .open(let path, _, let fd) = recorded, fd >= 0 { state.paths[fd] = path }
      state.records.append(Record(call: recorded, error: code))
    }
    errno = code
    return result
  }
}
