import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Counts a subscriber's calls.
final class Calls: Sendable {
  private let value = Mutex(0)

  /// Counts one call; returns the count so far.
  @discardableResult
  func record() -> Int {
    value.withLock {
      $0 += 1
      return $0
    }
  }

  var count: Int { value.withLock { $0 } }
}

/// Replaces a file the way another process's atomic save does: a temporary file in the same
/// folder, renamed over the target.
func replaceAtomically(_ url: URL, with text: String) throws {
  let temporary = url.deletingLastPathComponent().appendingPathComponent(
    ".\(url.lastPathComponent).tmp")
  try Data(text.utf8).write(to: temporary)
  guard rename(temporary.path, url.path) == 0 else {
    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
  }
}

/// A folder's path as the watcher names it: standardized, without a trailing slash.
func watchedPath(_ folder: URL) -> String {
  let path = folder.standardizedFileURL.path
  return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
}
