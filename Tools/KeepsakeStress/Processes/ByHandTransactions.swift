import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor of Keepsake's write protocol: the transactions of ``ProcessesChild/Mode/update``
/// written by hand, without Keepsake, as a careful user would write them for a file that many
/// processes share.
///
/// Each transaction takes an exclusive `flock` on a lock file beside the file, reads and decodes
/// the whole file with `JSONDecoder`, appends the item, encodes it with `JSONEncoder`, writes a
/// new temporary file, `fsync`s it, renames it over the file, `fsync`s the folder and unlocks:
/// the atomic, durable write of data-safety rule "Writes are atomic and durable", with the
/// serializable read-modify-write of "Processes that share a file lose nothing".
///
/// What it leaves out is what Keepsake adds around that protocol: watching the file (every other
/// process reloads at each commit), the reference's state, change detection, conflict copies,
/// error reporting. So the ratio of Keepsake to this floor is what the library costs.
///
/// Without `coding`, the protocol alone, as Keepsake's write protocol stands: the same lock
/// (and the look that it is still the lock file there), the look at the file that reads it only
/// when it changed, the temporary file with the file's permissions and the list of its extended
/// attributes, the look again before the swap, the swap of names and the look at what it
/// swapped out, the removal of that, and the folder's flush; but the item's bytes are spliced
/// into the file's bytes (`…]` becomes `…,{"id":"3.117"}]`) instead of decoding and encoding the
/// array. No app could store its state so, but the ratio of this floor to SQLite is what the
/// protocol itself costs, and Keepsake's to it what the library costs around it.
enum ByHandTransactions {
  /// Runs a child; the exit codes are ``ProcessesChild/run(_:)``'s.
  ///
  /// Its calls that change the disk or take the lock go through `timed`, as a Keepsake child's
  /// file system does, so both say the same of where their time went.
  static func run(
    _ options: ProcessesChild.Options, coding: Bool, timed: TimedSystemCalls
  ) -> Int32 {
    let calls = timed.calls
    let path = options.url.path
    let folderPath = options.url.deletingLastPathComponent().path
    let lock = open(path + ".by-hand-lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    let folder = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard lock >= 0, folder >= 0 else {
      StandardOutput.write("error cannot open the lock file or the folder: errno \(errno)")
      return 4
    }
    defer {
      close(lock)
      close(folder)
    }
    if let code = ProcessesChild.start(nil, options.startFile) { return code }
    let processorStart = LockTiming.processorTime()
    let code =
      coding
      ? withCoding(options, lock: lock, folder: folder, calls: calls)
      : protocolAlone(options, lock: lock, folder: folder, calls: calls)
    guard code == 0 else { return code }
    StandardOutput.write(timed.timing(processorSince: processorStart).line)
    StandardOutput.write("done \(options.count) 0 0")
    return 0
  }

  /// Runs the child's transactions, each `body` under the exclusive lock; returns the child's
  /// exit code (`body` returns one for a transaction that failed).
  private static func eachTransaction(
    _ options: ProcessesChild.Options, lock: Int32, calls: SystemCalls,
    _ body: (ProcessItem) -> Int32?
  ) -> Int32 {
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      guard calls.perform(.flock(fd: lock, operation: LOCK_EX)) == 0 else {
        StandardOutput.write("error flock: errno \(errno)")
        return 4
      }
      let failed = body(item)
      _ = calls.perform(.flock(fd: lock, operation: LOCK_UN))
      if let failed { return failed }
      StandardOutput.write("added \(item.id)")
    }
    return 0
  }

  /// The transactions as a user would write them, with Foundation's coders.
  private static func withCoding(
    _ options: ProcessesChild.Options, lock: Int32, folder: Int32, calls: SystemCalls
  ) -> Int32 {
    let path = options.url.path
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    let temporary = path + ".by-hand-\(getpid())"
    return eachTransaction(options, lock: lock, calls: calls) { item in
      let old = FileManager.default.contents(atPath: path)
      guard let data = coded(old, item, decoder, encoder) else {
        StandardOutput.write("unreadable \(path)")
        return 3
      }
      guard writeDurably(data, to: temporary, calls),
        calls.perform(.rename(from: temporary, to: path)) == 0,
        calls.perform(.fullFlush(fd: folder)) == 0
      else {
        StandardOutput.write("error writing \(path): errno \(errno)")
        return 4
      }
      return nil
    }
  }

  /// The transactions of the protocol alone; returns the child's exit code.
  private static func protocolAlone(
    _ options: ProcessesChild.Options, lock: Int32, folder: Int32, calls: SystemCalls
  ) -> Int32 {
    let path = options.url.path
    let lockPath = path + ".by-hand-lock"
    let temporary = path + ".by-hand-\(getpid())"
    var known: Identity? = nil
    var contents: Data? = nil
    return eachTransaction(options, lock: lock, calls: calls) { item in
      // The lock is the lock file that is there (one removed meanwhile locks nothing).
      var held = stat()
      var named = stat()
      guard fstat(lock, &held) == 0, lstat(lockPath, &named) == 0, held.st_ino == named.st_ino
      else {
        StandardOutput.write("error the lock file was replaced")
        return 4
      }
      // Read only when the file changed since this process last read or wrote it.
      let before = Identity(path)
      if before != known || contents == nil {
        contents = FileManager.default.contents(atPath: path)
      }
      guard let data = spliced(contents, item) else {
        StandardOutput.write("unreadable \(path)")
        return 3
      }
      guard writeDurably(data, to: temporary, calls, keepingMode: true),
        listAttributes(path, calls),
        Identity(path) == before,
        swap(temporary, path, expecting: before, calls),
        calls.perform(.fullFlush(fd: folder)) == 0
      else {
        StandardOutput.write("error writing \(path): errno \(errno)")
        return 4
      }
      known = Identity(path)
      contents = data
      return nil
    }
  }

  /// What tells a file's versions apart: device, inode, size, modification and change times.
  private struct Identity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    init?(_ path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      #if canImport(Darwin)
        modified = info.st_mtimespec
        changed = info.st_ctimespec
      #else
        modified = info.st_mtim
        changed = info.st_ctim
      #endif
    }

    /// The same version, its change time aside: a rename moves the change time of the file it
    /// moves.
    func isSameVersion(as other: Identity?) -> Bool {
      guard let other else { return false }
      return device == other.device && inode == other.inode && size == other.size
        && modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec
    }

    static func == (lhs: Identity, rhs: Identity) -> Bool {
      lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
        && lhs.modified.tv_sec == rhs.modified.tv_sec
        && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
    }
  }

  /// The names of the file's extended attributes, which a save carries over.
  private static func listAttributes(_ path: String, _ calls: SystemCalls) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes {
      calls.perform(.listAttributes(path: path, buffer: $0))
    }
    return count >= 0 || errno == ENOTSUP || errno == ENOENT
  }

  /// Swaps the temporary file's name with the file's, checks that what it swapped out is the
  /// version read, and removes it.
  private static func swap(
    _ temporary: String, _ path: String, expecting expected: Identity?, _ calls: SystemCalls
  ) -> Bool {
    guard expected != nil else { return calls.perform(.rename(from: temporary, to: path)) == 0 }
    guard calls.perform(.exchange(first: temporary, second: path)) == 0,
      Identity(temporary)?.isSameVersion(as: expected) ?? false
    else {
      return false
    }
    return calls.perform(.unlink(path: temporary)) == 0
  }

  /// The file's items and `item`, decoded and encoded with Foundation's coders; `nil` when the
  /// file does not decode.
  private static func coded(
    _ old: Data?, _ item: ProcessItem, _ decoder: JSONDecoder, _ encoder: JSONEncoder
  ) -> Data? {
    var items: [ProcessItem] = []
    if let old {
      guard let decoded = try? decoder.decode([ProcessItem].self, from: old) else { return nil }
      items = decoded
    }
    items.append(item)
    return try? encoder.encode(items)
  }

  /// The file's bytes with `item`'s spliced in before the closing bracket; `nil` when the file
  /// does not end with one.
  private static func spliced(_ old: Data?, _ item: ProcessItem) -> Data? {
    let element = Data("{\"id\":\"\(item.id)\"}]".utf8)
    guard var data = old, data != Data("[]".utf8) else { return Data("[".utf8) + element }
    guard data.count > 2, data.last == UInt8(ascii: "]") else { return nil }
    data.removeLast()
    data.append(UInt8(ascii: ","))
    return data + element
  }

  /// Writes `data` to a new file at `path` and `fsync`s it; with `keepingMode`, sets its
  /// permissions first.
  private static func writeDurably(
    _ data: Data, to path: String, _ calls: SystemCalls, keepingMode: Bool = false
  ) -> Bool {
    let file = Int32(
      truncatingIfNeeded: calls.perform(
        .open(path: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)))
    guard file >= 0 else { return false }
    // The file's permissions, as a save carries them over.
    if keepingMode, calls.perform(.fchmod(fd: file, mode: 0o644)) != 0 { return false }
    defer { _ = calls.perform(.close(fd: file)) }
    let written = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = calls.perform(
          .write(
            fd: file, bytes: UnsafeRawBufferPointer(rebasing: bytes[offset...]), offset: offset))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    return written && calls.perform(.fullFlush(fd: file)) == 0
  }
}
