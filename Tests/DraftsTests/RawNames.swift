import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Names as bytes, for files whose names are not valid UTF-8, which `String` and `URL` cannot
/// hold.
enum RawNames {
  /// `folder`'s path followed by `/` and `name`.
  static func path(_ folder: URL, _ name: [UInt8]) -> [UInt8] {
    Array(folder.path.utf8) + [UInt8(ascii: "/")] + name
  }

  /// Writes `data` to a new file at `path`.
  static func create(_ data: Data, at path: [UInt8]) throws {
    let fd = withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == data.count else { throw POSIXError(.EIO) }
  }

  /// Makes a folder at `path`.
  static func makeFolder(_ path: [UInt8]) throws {
    guard withCString(path, { mkdir($0, 0o755) }) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
  }

  /// The names in the folder at `path`, as bytes, sorted.
  static func names(in path: [UInt8]) -> [[UInt8]] {
    guard let dir = withCString(path, { opendir($0) }) else { return [] }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
      if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// The bytes of the file at `path`.
  static func contents(of path: [UInt8]) -> Data? {
    let fd = withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { return data }
      data.append(contentsOf: buffer[..<count])
    }
  }

  private static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}
