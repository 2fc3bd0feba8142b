import Foundation

/// The real disk, with every path placed under a root folder: a test's opt-in to real files
/// that still cannot reach the developer's own.
struct ConfinedFileSystem: FileSystem {
  let root: URL
  /// The root with its links resolved: where resolved paths under it start.
  private let resolvedRoot: String
  private let base = LocalFileSystem()

  init(root: URL) {
    self.root = root
    // NB: through a name inside it: `resolve` leaves a link to a folder as it is.
    let inside = (try? LocalFileSystem().resolve(root.appendingPathComponent("_")))
    self.resolvedRoot = (inside?.deletingLastPathComponent() ?? root).standardizedFileURL.path
  }

  func confine(_ url: URL) -> URL {
    let path = url.standardizedFileURL.path
    let rootPath = root.standardizedFileURL.path
    for prefix in [rootPath, resolvedRoot] where path == prefix || path.hasPrefix(prefix + "/") {
      return url
    }
    return root.appendingPathComponent(String(path.drop(while: { $0 == "/" })))
  }

  /// The file `url` names, resolved under the root and given back as the app names it (without
  /// the root); a link that leads out of the root leads to the same place under it, so nothing
  /// outside is ever reached.
  func resolve(_ url: URL) throws -> URL {
    try unconfine(try base.resolve(confine(url)))
  }

  func resolve(_ url: URL, path: String, folders: ResolvedFolders) throws -> URL {
    let confined = confine(url)
    return try unconfine(try base.resolve(confined, path: confined.path, folders: folders))
  }

  /// A path resolved under the root, as the app names it.
  private func unconfine(_ url: URL) throws -> URL {
    let resolved = url.standardizedFileURL.path
    for prefix in [root.standardizedFileURL.path, resolvedRoot]
    where resolved.hasPrefix(prefix + "/") {
      return URL(fileURLWithPath: String(resolved.dropFirst(prefix.count)))
    }
    return URL(fileURLWithPath: resolved)
  }

  func folderExists(_ url: URL) -> Bool { base.folderExists(confine(url)) }

  func belongsWithStore(_ url: URL, store: URL) -> Bool {
    base.belongsWithStore(confine(url), store: confine(store))
  }

  func createAtomically(_ data: Data, at url: URL) throws {
    try base.createAtomically(data, at: confine(url))
  }

  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    try base.replaceAtomically(
      data, at: confine(url), expecting: expected, creatingFolder: creatingFolder)
  }

  func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
    try base.copyItem(at: confine(source), toNew: confine(destination))
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try base.contents(of: confine(url), maximumSize: maximumSize)
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    try base.writeAtomically(data, to: confine(url))
  }

  func writePrivately(_ data: Data, to url: URL) throws {
    try base.writePrivately(data, to: confine(url))
  }

  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    try base.lockExclusively(confine(url), timeout: timeout)
  }

  func lockExclusively(
    _ url: URL, timeout: Duration, creatingFolder: Bool
  ) throws -> FileLock {
    try base.lockExclusively(confine(url), timeout: timeout, creatingFolder: creatingFolder)
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
