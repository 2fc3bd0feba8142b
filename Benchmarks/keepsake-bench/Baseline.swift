import DraftsFeature
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor each file scenario is measured against: the least work that does the same job, by
/// hand, with Foundation's JSON and the durable-write protocol of data-safety rule "Writes are
/// atomic and durable" (DataSafety.md).
///
/// The files it writes hold the same JSON as Keepsake's (sorted keys, so equal values give equal
/// bytes), without the 26 bytes of the version envelope; the scenarios check that they match.
enum Baseline {
  /// How many times the baseline called `fsync`, since the process started.
  static var fsyncCalls: Int { fsyncCounter.load(ordering: .acquiring) }
  private static let fsyncCounter = Atomic<Int>(0)

  private static func countedFsync(_ fd: Int32) -> Int32 {
    fsyncCounter.add(1, ordering: .acquiringAndReleasing)
    return fsync(fd)
  }

  /// The JSON of `drafts`, as Keepsake writes it inside its envelope.
  static func encode(_ drafts: [Draft]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(drafts)
  }

  /// Encodes, writes a temporary file, fsyncs it, renames it over `url` and fsyncs the folder.
  static func durableSave(_ drafts: [Draft], to url: URL) throws {
    try durableWrite(encode(drafts), to: url)
  }

  /// A temporary file beside `url`, fsynced, renamed over it, then the folder fsynced.
  static func durableWrite(_ data: Data, to url: URL) throws {
    let temporary = url.deletingLastPathComponent().appendingPathComponent(".baseline.tmp")
    let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw BenchmarkError("open failed: \(errno)") }
    try data.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = write(fd, base + offset, buffer.count - offset)
        guard written > 0 else {
          close(fd)
          throw BenchmarkError("write failed: \(errno)")
        }
        offset += written
      }
    }
    guard countedFsync(fd) == 0 else {
      close(fd)
      throw BenchmarkError("fsync failed: \(errno)")
    }
    close(fd)
    guard rename(temporary.path, url.path) == 0 else { throw BenchmarkError("rename failed") }
    let folder = open(url.deletingLastPathComponent().path, O_RDONLY)
    defer { close(folder) }
    guard countedFsync(folder) == 0 else { throw BenchmarkError("fsync failed: \(errno)") }
  }

  /// Writes `data` to `url` with `open`, `write` and `close`, and no fsync.
  ///
  /// NB: for setup and for the outside writer of the watch figure. `Data.write(to:)` fsyncs on
  /// Linux, which made setting up 10,000 files the slowest part of the run.
  static func writeQuickly(_ data: Data, to url: URL) throws {
    let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw BenchmarkError("open of \(url.path) failed: \(errno)") }
    defer { close(fd) }
    try data.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = write(fd, base + offset, buffer.count - offset)
        guard written > 0 else { throw BenchmarkError("write failed: \(errno)") }
        offset += written
      }
    }
  }

  /// `Data(contentsOf:)` + `JSONDecoder().decode`.
  static func load(_ url: URL) throws -> [Draft] {
    try JSONDecoder().decode([Draft].self, from: Data(contentsOf: url))
  }

  /// A version 1 file migrated by hand: decode its `{"id", "text"}` elements and build the
  /// current drafts from them, as the format's two steps do (not pinned, no tags).
  static func migrateV1(_ url: URL) throws -> [Draft] {
    try JSONDecoder().decode([SampleDrafts.V1].self, from: Data(contentsOf: url)).map {
      Draft(id: $0.id, body: $0.text)
    }
  }

  /// A read-modify-write no other process can interleave with: `flock` on a lock file beside
  /// `url`, read and decode the file, append, encode, write durably, unlock.
  static func transaction(appending draft: Draft, to url: URL) throws {
    let lockPath = url.path + ".lock"
    let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard lock >= 0 else { throw BenchmarkError("open of the lock failed: \(errno)") }
    defer { close(lock) }
    guard flock(lock, LOCK_EX) == 0 else { throw BenchmarkError("flock failed: \(errno)") }
    defer { flock(lock, LOCK_UN) }
    var drafts = try load(url)
    drafts.append(draft)
    try durableSave(drafts, to: url)
  }

  /// Opens, reads and decodes one small file, as a key's first read does.
  static func readSmall<Value: Decodable>(_ type: Value.Type, from url: URL) throws -> Value {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw BenchmarkError("open failed: \(errno)") }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var data = Data()
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count >= 0 else { throw BenchmarkError("read failed: \(errno)") }
      if count == 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return try JSONDecoder().decode(type, from: data)
  }
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
