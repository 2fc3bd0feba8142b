import Foundation
import Keepsake

/// The real disk with a smaller size limit for every read, so the fuzz campaign can make a
/// file "too large" with a few kilobytes instead of hundreds of megabytes.
///
/// NB: keys read with ``FileSystemLimits/defaultMaximumFileSize``; lowering it here is the only
/// way to give one key a smaller limit.
struct LimitedFileSystem: FileSystem {
  let limit: Int
  private let base = LocalFileSystem()

  init(limit: Int) { self.limit = limit }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try base.contents(of: url, maximumSize: min(limit, maximumSize))
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    try base.writeAtomically(data, to: url)
  }

  func removeItem(at url: URL) throws { try base.removeItem(at: url) }

  func contentsOfDirectory(at url: URL) throws -> [String] {
    try base.contentsOfDirectory(at: url)
  }

  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    base.watch(url, onChange: onChange)
  }

  func identity(of url: URL) throws -> FileIdentity? { try base.identity(of: url) }
}
