import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which folder a path names now, to notice one replaced while events were lost.
struct FolderIdentity: Equatable {
  var device: UInt64
  var inode: UInt64
}

/// Paths of folders, as lists of components from the root.
enum FolderPath {
  /// The components of an absolute path: `"/a/b"` is `["a", "b"]`, `"/"` is `[]`.
  static func components(_ path: String) -> [String] {
    path.split(separator: "/").map(String.init)
  }

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
}
