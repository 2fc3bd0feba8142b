import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which folder (or file) a path names now, to notice one replaced while events were lost, or a
/// watched file replaced by an atomic save.
struct FolderIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
}

/// Paths of folders, as lists of components from the root.
enum FolderPath {
  /// The components of an absolute path: `"/a/b"` is `["a", "b"]`, `"/"` is `[]`.
  ///
  /// NB: split as bytes: splitting the string's characters finds grapheme boundaries, which is
  /// costly, and a file key's creation splits two paths. A `/` byte is always a whole character
  /// in UTF-8.
  static func components(_ path: String) -> [String] {
    path.utf8.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
  }

  private static let slash = UInt8(ascii: "/")

  /// The folder part of a path, found as bytes: `"/a/b.json"` is `"/a"`, `"/b.json"` is `"/"`;
  /// `nil` for a path without a `/`.
  static func parent(of path: String) -> String? {
    guard let slash = PathScan.lastSlash(in: path) else { return nil }
    return slash == 0 ? "/" : PathScan.part(of: path, 0..<slash)
  }

  /// The last part of a path, found as bytes: `"/a/b.json"` is `"b.json"`; the whole path
  /// when it has no `/`.
  static func lastComponent(of path: String) -> String {
    guard let slash = PathScan.lastSlash(in: path) else { return path }
    return PathScan.part(of: path, (slash + 1)..<path.utf8.count)
  }

  /// `url.path`, for less when nothing in it is escaped: on Linux `URL.path` costs much more
  /// than the escaped path `path(percentEncoded: true)`.
  ///
  /// NB: an escaped path without `%` is the path, but for the trailing `/` of a folder, which
  /// `URL.path` drops. Any escape (a space, a letter beyond ASCII, an escaped `/` that `path`
  /// keeps escaped) takes `URL.path` itself.
  static func path(of url: URL) -> String {
    let escaped = url.path(percentEncoded: true)
    let bytes = escaped.utf8
    guard !PathScan.contains(UInt8(ascii: "%"), in: escaped) else { return url.path }
    guard bytes.count > 1, bytes.last == slash else { return escaped }
    var trimmed = Substring(escaped)
    while trimmed.utf8.count > 1, trimmed.utf8.last == slash { trimmed = trimmed.dropLast() }
    return String(trimmed)
  }

  /// `url.standardizedFileURL.path`, without its cost when the path has nothing to standardize.
  ///
  /// NB: standardizing is costly on Linux, a sizable part of a file key's creation, for what is
  /// nearly always an absolute path without `.`, `..` or empty components, which it returns as
  /// it is (see "Costs the code avoids" in Benchmarks/README.md).
  static func standardPath(of url: URL) -> String { standardPath(of: url, path: url.path) }

  /// ``standardPath(of:)`` of `url`, whose `path` is given.
  static func standardPath(of url: URL, path: String) -> String {
    if url.isFileURL && isStandard(path) { return path }
    return url.standardizedFileURL.path
  }

  /// Whether `path` is absolute, and has no empty, `.` or `..` component and no trailing `/`.
  static func isStandard(_ path: String) -> Bool { PathScan.isStandard(path) }

  /// The absolute path of the first `count` components.
  static func path(_ components: [String], count: Int) -> String {
    "/" + components.prefix(count).joined(separator: "/")
  }

  /// The identity of the folder at `path`, following links; nil if no folder is there.
  static func identity(_ path: String) -> FolderIdentity? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
    return FolderIdentity(
      device: UInt64(truncatingIfNeeded: info.st_dev),
      inode: UInt64(truncatingIfNeeded: info.st_ino))
  }

  /// Whether a folder (or a link to one) is at `path`.
  static func isFolder(_ path: String) -> Bool { identity(path) != nil }

  /// The identity of the regular file at `path`, following links; nil if none is there (a
  /// folder, a FIFO or a device is no file to watch for writes).
  static func fileIdentity(_ path: String) -> FolderIdentity? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return FolderIdentity(
      device: UInt64(truncatingIfNeeded: info.st_dev),
      inode: UInt64(truncatingIfNeeded: info.st_ino))
  }
}
