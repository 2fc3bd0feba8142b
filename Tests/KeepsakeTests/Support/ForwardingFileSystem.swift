import Foundation
import Keepsake

/// A file system that forwards every operation to another; test doubles subclass it and change
/// the one operation they are about.
class ForwardingFileSystem: FileSystem, @unchecked Sendable {
  // NB: `base` is immutable and Sendable; subclasses keep only Sendable state.
  let base: any FileSystem

  init(_ base: any FileSystem) { self.base = base }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try base.contents(of: url, maximumSize: maximumSize)
  }
  func writeAtomically(_ data: Data, to url: URL) throws { try base.writeAtomically(data, to: url) }
  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    try base.replaceAtomically(
      data, at: url, expecting: expected, creatingFolder: creatingFolder)
  }
  func removeItem(at url: URL) throws { try base.removeItem(at: url) }
  func contentsOfDirectory(at url: URL) throws -> [String] { try base.contentsOfDirectory(at: url) }
  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    base.watch(url, onChange: onChange)
  }
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    try base.lockExclusively(url, timeout: timeout)
  }
  func identity(of url: URL) throws -> FileIdentity? { try base.identity(of: url) }
}
