import Foundation

/// The versions of a file that a sync engine keeps outside its folder, and the coordination a
/// scan's reads and writes of the file need: what ``SyncResolver`` asks of iCloud Drive.
///
/// The resolver decides everything around these calls, the same way for every engine: which
/// versions merge, that the merged file is written durably first, and only then that each merged
/// version is removed (through its ``OtherVersion/discard``). Tests give it a double.
protocol FileVersions: Sendable {
  /// The versions of the file at `url` that still wait to be merged into it, each removed by
  /// its `discard` once its content is durably in the file.
  func others(of url: URL) -> [OtherVersion]

  /// Runs `body`, a scan's reads and writes of the file at `url`, with whatever access to the
  /// file the engine requires.
  ///
  /// - Throws: The engine's error when it refused access; `body` did not run.
  func coordinate(_ url: URL, _ body: () -> Void) throws
}

/// iCloud Drive's side of the resolver: a file in a ubiquity container has no conflict copies
/// beside it, but unresolved `NSFileVersion`s, and is read and written under an
/// `NSFileCoordinator`.
///
/// A merged version is marked resolved and then removed (`NSFileVersion.remove()`): a resolved
/// version that stays keeps using the person's iCloud storage. Only the versions merged are
/// removed, never `removeOtherVersionsOfItem(at:)`, which would take the versions the person
/// kept of the file too.
///
/// > Important: Written for Apple platforms and not compiled by this project's CI, which runs on
/// > Linux; there a file has no other versions and a scan runs uncoordinated.
struct ICloudVersions: FileVersions {
  /// The versions of iCloud Drive where it exists; nothing elsewhere.
  static let live = ICloudVersions()

  func others(of url: URL) -> [OtherVersion] {
    #if canImport(Darwin)
      guard FileManager.default.isUbiquitousItem(at: url),
        let versions = NSFileVersion.unresolvedConflictVersionsOfItem(at: url)
      else { return [] }
      return versions.map { version in
        OtherVersion(
          name: "iCloud \(version.persistentIdentifier)",
          origin: .conflictCopy(version.url, engine: .iCloudDrive),
          read: { try LocalFileSystem().contents(of: version.url) },
          discard: {
            // NB: resolved first, so iCloud stops offering it as a conflict even when its
            // removal fails (then the version is kept, and the scan says so).
            version.isResolved = true
            try version.remove()
          })
      }
    #else
      return []
    #endif
  }

  func coordinate(_ url: URL, _ body: () -> Void) throws {
    #if canImport(Darwin)
      if FileManager.default.isUbiquitousItem(at: url) {
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(
          writingItemAt: url, options: .forMerging, error: &error
        ) { _ in body() }
        if let error { throw error }
        return
      }
    #endif
    body()
  }
}
