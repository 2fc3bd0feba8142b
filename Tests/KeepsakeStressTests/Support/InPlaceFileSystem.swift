import Foundation
import Keepsake

/// A deliberately broken writer: it writes over the file itself instead of a temporary file, so a
/// failure midway leaves half the new bytes, the torn file data-safety rule "Writes are atomic and
/// durable" (DataSafety.md) forbids.
struct InPlaceFileSystem: FileSystem {
  let disk: InMemoryFileSystem

  func writeAtomically(_ data: Data, to url: URL) throws {
    do {
      try disk.writeAtomically(data, to: url)
    } catch {
      disk.setContents(data.prefix(data.count / 2), at: url, notifyingWatchers: false)
      throw error
    }
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try disk.contents(of: url, maximumSize: maximumSize)
  }
  func removeItem(at url: URL) throws { try disk.removeItem(at: url) }
  func contentsOfDirectory(at url: URL) throws -> [String] {
    try disk.contentsOfDirectory(at: url)
  }
  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    disk.watch(url, onChange: onChange)
  }
  func identity(of url: URL) throws -> FileIdentity? { try disk.identity(of: url) }
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    return try disk.lockExclusively(url, timeout: timeout)
  }
}
