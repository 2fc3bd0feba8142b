import Foundation

/// iCloud Drive's side of the resolver: a file in a ubiquity container has no conflict copies
/// beside it, but unresolved `NSFileVersion`s, and is read and written under an
/// `NSFileCoordinator`.
///
/// > Important: Written for Apple platforms and not compiled by this project's CI, which runs on
/// > Linux; there both functions do nothing.
enum ICloudVersions {
  /// The unresolved versions of the file at `url`, as versions to merge; each is marked
  /// resolved once its content is durably in the file.
  static func others(of url: URL) -> [OtherVersion] {
    #if canImport(Darwin)
      guard FileManager.default.isUbiquitousItem(at: url),
        let versions = NSFileVersion.unresolvedConflictVersionsOfItem(at: url)
      else { return [] }
      return versions.map { version in
        OtherVersion(
          name: "iCloud \(version.persistentIdentifier)",
          origin: .conflictCopy(version.url, engine: .iCloudDrive),
          read: { try LocalFileSystem().contents(of: version.url) },
          discard: { version.isResolved = true })
      }
    #else
      return []
    #endif
  }

  /// Runs `body`, a scan's reads and writes of the file at `url`, under a file coordinator when
  /// the file is in a ubiquity container.
  static func coordinate(_ url: URL, _ body: () -> Void) {
    #if canImport(Darwin)
      if FileManager.default.isUbiquitousItem(at: url) {
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(
          writingItemAt: url, options: .forMerging, error: &error
        ) { _ in body() }
        return
      }
    #endif
    body()
  }
}
