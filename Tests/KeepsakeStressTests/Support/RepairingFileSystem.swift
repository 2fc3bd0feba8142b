import DraftsFeature
import Foundation
import Keepsake

/// A deliberately broken disk that "repairs" every file it cannot decode by emptying it as it is
/// read, which is what data-safety rule "A file Keepsake cannot read is never overwritten"
/// (DataSafety.md) forbids Keepsake to do.
struct RepairingFileSystem: FileSystem {
  let disk: InMemoryFileSystem

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    let data = try disk.contents(of: url, maximumSize: maximumSize)
    if let data, (try? DraftsFormat.decode(data)) == nil {
      disk.setContents(Data("[]".utf8), at: url, notifyingWatchers: false)
    }
    return data
  }

  func writeAtomically(_ data: Data, to url: URL) throws { try disk.writeAtomically(data, to: url) }
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
