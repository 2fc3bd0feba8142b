import DraftsFeature
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor each scenario is measured against: the minimum work, by hand, with Foundation.
enum Baseline {
  /// `JSONEncoder().encode` + write a temporary file + fsync + rename + fsync of the folder.
  static func durableSave(_ drafts: [Draft], to url: URL) throws {
    let data = try JSONEncoder().encode(drafts)
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
    fsync(fd)
    close(fd)
    guard rename(temporary.path, url.path) == 0 else { throw BenchmarkError("rename failed") }
    let folder = open(url.deletingLastPathComponent().path, O_RDONLY)
    fsync(folder)
    close(folder)
  }

  /// `Data(contentsOf:)` + `JSONDecoder().decode`.
  static func load(_ url: URL) throws -> [Draft] {
    try JSONDecoder().decode([Draft].self, from: Data(contentsOf: url))
  }
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
