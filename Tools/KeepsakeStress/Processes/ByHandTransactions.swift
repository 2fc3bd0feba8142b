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
/// Without `coding`, the protocol alone: the same lock, read, write, `fsync`s and rename, but the
/// item's bytes are spliced into the file's bytes (`…]` becomes `…,{"id":"3.117"}]`) instead of
/// decoding and encoding the array. No app could store its state so, but the ratio of this floor
/// to SQLite is what the protocol itself costs, whatever a library does around it.
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
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    let temporary = path + ".by-hand-\(getpid())"
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      guard calls.flock(lock, LOCK_EX) == 0 else {
        StandardOutput.write("error flock: errno \(errno)")
        return 4
      }
      defer { _ = calls.flock(lock, LOCK_UN) }
      let old = FileManager.default.contents(atPath: path)
      guard let data = coding ? coded(old, item, decoder, encoder) : spliced(old, item) else {
        StandardOutput.write("unreadable \(path)")
        return 3
      }
      guard writeDurably(data, to: temporary, calls),
        calls.rename(temporary, path) == 0, calls.fullFlush(folder) == 0
      else {
        StandardOutput.write("error writing \(path): errno \(errno)")
        return 4
      }
      StandardOutput.write("added \(item.id)")
    }
    StandardOutput.write(timed.timing(processorSince: processorStart).line)
    StandardOutput.write("done \(options.count) 0 0")
    return 0
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

  /// Writes `data` to a new file at `path` and `fsync`s it.
  private static func writeDurably(_ data: Data, to path: String, _ calls: SystemCalls) -> Bool {
    let file = calls.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard file >= 0 else { return false }
    defer { _ = calls.close(file) }
    let written = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = calls.write(file, UnsafeRawBufferPointer(rebasing: bytes[offset...]), offset)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    return written && calls.fullFlush(file) == 0
  }
}
