import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Paths as bytes, for the cases whose names are not valid UTF-8, which `String` cannot hold.
enum RawPath {
  /// Writes `data` to a new file at `path`.
  static func write(_ data: Data, to path: [UInt8]) throws {
    let fd = withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
    guard fd >= 0 else {
      throw ChildProcessError(what: "create \(PathBytes.escaped(path))", code: errno)
    }
    defer { close(fd) }
    let written = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    guard written == data.count else {
      throw ChildProcessError(what: "write \(PathBytes.escaped(path))", code: errno)
    }
  }

  /// Makes a symbolic link at `path` to `destination`; returns what `symlink` returns.
  static func symlink(_ destination: [UInt8], at path: [UInt8]) -> Int32 {
    withCString(destination) { destination in
      withCString(path) { path in
        #if canImport(Glibc)
          Glibc.symlink(destination, path)
        #else
          Darwin.symlink(destination, path)
        #endif
      }
    }
  }

  /// Every entry under `folder`, depth first, as paths relative to it, without following links.
  static func tree(_ folder: [UInt8]) -> [[UInt8]] {
    guard let dir = withCString(folder, { opendir($0) }) else { return [] }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
      guard name != Array(".".utf8), name != Array("..".utf8) else { continue }
      names.append(name)
      var info = stat()
      let path = folder + [UInt8(ascii: "/")] + name
      if withCString(path, { lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFDIR {
        names += tree(path).map { name + [UInt8(ascii: "/")] + $0 }
      }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// What is at `path`, without following a link: its kind, inode, size and modification time
  /// (for files) and link destination, as one line.
  static func describe(_ path: [UInt8]) -> String {
    var info = stat()
    guard withCString(path, { lstat($0, &info) }) == 0 else { return "gone" }
    var destination = [UInt8](repeating: 0, count: 4096)
    let count = withCString(path) { path in
      destination.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
      }
    }
    let link = count > 0 ? PathBytes.escaped(destination[..<count]) : "-"
    let isFolder = info.st_mode & S_IFMT == S_IFDIR
    #if canImport(Darwin)
      let modified = "\(info.st_mtimespec.tv_sec).\(info.st_mtimespec.tv_nsec)"
    #else
      let modified = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    #endif
    // A folder's size and time change with what is made inside it; its entries are compared.
    let contents = isFolder ? "" : " \(info.st_size) \(modified)"
    return "\(info.st_ino) \(info.st_mode)\(contents) \(link)"
  }

  static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}
