import Foundation
import Keepsake
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The kinds of bad file the rule "Bad files get a clear error at once" names, each made at a key's
/// path on the real disk.
enum BadFile: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case fifo
  case deviceLink
  case directory
  case socket
  case sparseHugeFile
  case linkLoop

  var testDescription: String { rawValue }

  /// The error `contents(of:)` must throw.
  var reason: FileSystemError.Reason {
    switch self {
    case .fifo: return .notARegularFile(kind: "a FIFO")
    case .deviceLink: return .notARegularFile(kind: "a character device")
    case .directory: return .notARegularFile(kind: "a directory")
    case .socket: return .notARegularFile(kind: "a socket")
    case .sparseHugeFile:
      return .tooLarge(size: Self.hugeSize, limit: FileSystemLimits.defaultMaximumFileSize)
    case .linkLoop: return .linkLoop
    }
  }

  /// What a load error's description must say.
  var phrase: String {
    switch reason {
    case .notARegularFile(let kind): return "it is \(kind), not a regular file"
    case .tooLarge: return "more than the limit of 268435456 bytes"
    default: return "a loop of symbolic links"
    }
  }

  /// Other names the case puts in the folder.
  var companions: [String] { self == .linkLoop ? ["store.json.other"] : [] }

  static let hugeSize: Int64 = 3 << 30

  /// Makes the bad file at `url`.
  func make(at url: URL) throws {
    let path = url.path
    switch self {
    case .fifo:
      try check(mkfifo(path, 0o600), "mkfifo")
    case .deviceLink:
      try check(symlink("/dev/zero", path), "symlink")
    case .directory:
      try check(mkdir(path, 0o700), "mkdir")
    case .socket:
      try Self.bindSocket(at: path)
    case .sparseHugeFile:
      let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      try check(fd, "open")
      defer { close(fd) }
      // Instant and takes no disk space: the 3 GB are a hole.
      try check(ftruncate(fd, off_t(Self.hugeSize)), "ftruncate")
    case .linkLoop:
      let other = path + ".other"
      try check(symlink(other, path), "symlink")
      try check(symlink(path, other), "symlink")
    }
  }

  private static func bindSocket(at path: String) throws {
    #if canImport(Glibc)
      let stream = Int32(SOCK_STREAM.rawValue)
    #else
      let stream = SOCK_STREAM
    #endif
    // NB: `socket` alone names the case of this enum.
    #if canImport(Glibc)
      let fd = Glibc.socket(AF_UNIX, stream, 0)
    #else
      let fd = Darwin.socket(AF_UNIX, stream, 0)
    #endif
    try check(fd, "socket")
    // The socket file stays after the descriptor is closed, which is what a key would meet.
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw SetupError(what: "socket path \(path) is too long")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try check(bound, "bind")
  }
}

/// What is at a path, without following a link: enough to see it was not touched.
struct FileSnapshot: Equatable {
  var inode: UInt64
  var mode: UInt32
  var size: Int64
  var blocks: Int64
  var modified: Int
  var linkDestination: String?

  init(_ url: URL) throws {
    var info = stat()
    try check(lstat(url.path, &info), "lstat")
    inode = UInt64(info.st_ino)
    mode = UInt32(info.st_mode)
    size = Int64(info.st_size)
    blocks = Int64(info.st_blocks)
    #if canImport(Darwin)
      modified = info.st_mtimespec.tv_sec * 1_000_000_000 + info.st_mtimespec.tv_nsec
    #else
      modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    #endif
    linkDestination = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
  }
}

/// Runs `body` on a thread of its own and returns its outcome, or `nil` when it has not returned
/// within `seconds`.
///
/// NB: the deadline only turns a hang (the bug the rule "Bad files get a clear error at once" is
/// about) into a failure instead of a test run that never ends; it is not a speed requirement, so
/// it is generous for a loaded machine. A thread that never returns is abandoned.
func returning<T: Sendable>(
  within seconds: Double = 5, _ body: @escaping @Sendable () throws -> T
) async -> Result<T, any Error>? {
  let once = Once()
  return await withCheckedContinuation { continuation in
    Thread.detachNewThread {
      let result = Result { try body() }
      if once.claim() { continuation.resume(returning: result) }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
      if once.claim() { continuation.resume(returning: nil) }
    }
  }
}

/// Lets exactly one of several callers through.
private final class Once: Sendable {
  private let claimed = Mutex(false)

  func claim() -> Bool {
    claimed.withLock { claimed in
      defer { claimed = true }
      return !claimed
    }
  }
}

/// A step of a test's setup failed.
struct SetupError: Error, CustomStringConvertible {
  var what: String
  var description: String { what }
}

/// Throws when a C call returned a negative result, naming it and `errno`.
private func check(_ result: Int32, _ call: String) throws {
  if result < 0 { throw SetupError(what: "\(call): \(String(cString: strerror(errno)))") }
}
