import Foundation

/// The real disk, with every path placed under a root folder: a test's opt-in to real files
/// that still cannot reach the developer's own.
struct ConfinedFileSystem: FileSystem {
  let root: URL
  private let base = LocalFileSystem()

  func confine(_ url: URL) -> URL {
    let path = url.standardizedFileURL.path
    let rootPath = root.standardizedFileURL.path
    if path == rootPath || path.hasPrefix(rootPath + "/") { return url }
    return root.appendingPathComponent(String(path.drop(while: { $0 == "/" })))
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try base.contents(of: confine(url), maximumSize: maximumSize)
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    try base.writeAtomically(data, to: confine(url))
  }

  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    try base.lockExclusively(confine(url), timeout: timeout)
  }

  func identity(of url: URL) throws -> FileIdentity? { try base.identity(of: confine(url)) }

  func removeItem(at url: URL) throws { try base.removeItem(at: confine(url)) }

  func contentsOfDirectory(at url: URL) throws -> [String] {
    try base.contentsOfDirectory(at: confine(url))
  }

  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    base.watch(confine(url), onChange: onChange)
  }

  func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    base.watchEntries(of: confine(folder), matching: matching, onChange: onChange)
  }
}
