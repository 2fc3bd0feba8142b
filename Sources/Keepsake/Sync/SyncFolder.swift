import Foundation
import Synchronization

/// Whether a folder lies in a tree a sync engine keeps, by the marker each engine leaves at the
/// top of its tree: only there do files carry their ancestry, so that every other file keeps its
/// exact bytes.
///
/// - Syncthing: a `.stfolder` folder (a file, in versions before 0.14.?);
/// - Dropbox: a `.dropbox` file;
/// - Nextcloud and ownCloud: their sync log, `.nextcloudsync.log` or `.owncloudsync.log`;
/// - iCloud Drive: a path under `Library/Mobile Documents` (Apple platforms).
///
/// A folder without a marker (a Dropbox folder under macOS's File Provider, say) is taken as
/// synced as soon as a conflict copy appears in it.
enum SyncFolder {
  /// The engine whose tree `folder` is in, or `nil`.
  ///
  /// NB: on the real disk the answer is kept for the life of the process (each folder walks up
  /// to the root once: a few `stat`s per level); an in-memory disk is asked every time.
  static func engine(containing folder: URL, in fileSystem: any FileSystem) -> SyncEngine? {
    // NB: the path as given, not standardized: standardizing costs system calls on Linux, and
    // a key's folder is already the path its identity was made from.
    engine(containingPath: folder.path, in: fileSystem)
  }

  /// ``engine(containing:in:)`` of the folder at `path`.
  static func engine(containingPath path: String, in fileSystem: any FileSystem) -> SyncEngine? {
    guard fileSystem is LocalFileSystem else { return look(from: path, in: fileSystem) }
    if let known = cache.withLock({ $0[path] }) { return known }
    return look(from: path, in: fileSystem, caching: true)
  }

  private static let cache = Mutex<[String: SyncEngine?]>([:])

  /// The markers, in the order they are looked for in each folder.
  static let markers: [(name: String, engine: SyncEngine)] = [
    (".stfolder", .syncthing), (".dropbox", .dropbox), (".nextcloudsync.log", .nextcloud),
    (".owncloudsync.log", .ownCloud),
  ]

  /// The engine of the nearest folder from `path` up that has a marker; with `caching`, the
  /// answer of every folder on the way is kept.
  ///
  /// NB: every folder's answer, not only the first's: an app with a folder per document walked
  /// from each new folder to the root, four `stat`s a level; the next folder beside
  /// it now stops at their common parent.
  private static func look(
    from path: String, in fileSystem: any FileSystem, caching: Bool = false
  ) -> SyncEngine? {
    #if canImport(Darwin)
      if path.contains("/Library/Mobile Documents/") { return .iCloudDrive }
    #endif
    var components = FolderPath.components(path)
    var walked: [String] = []
    var found: SyncEngine?
    // NB: bounded, so a path of thousands of components costs no more than 64 levels.
    var levels = 0
    search: while levels < 64 {
      let folder = FolderPath.path(components, count: components.count)
      if caching, let known = cache.withLock({ $0[folder] }) {
        found = known
        break
      }
      walked.append(folder)
      let prefix = folder == "/" ? "/" : folder + "/"
      for marker in markers {
        // NB: the marker's path as a string: on Linux `URL(fileURLWithPath:)` without
        // `isDirectory` makes a `stat` of its own, and `appendingPathComponent` is costly; four
        // markers at every level were most of a first key's cost in a new folder.
        let url = URL(fileURLWithPath: prefix + marker.name, isDirectory: false)
        // NB: a marker another user planted in this user's folder (or a link) does not make it
        // synced.
        if (try? fileSystem.identity(of: url)) != nil,
          fileSystem.belongsWithStore(url, store: URL(fileURLWithPath: folder))
        {
          found = marker.engine
          break search
        }
      }
      guard !components.isEmpty else { break }
      components.removeLast()
      levels += 1
    }
    guard caching else { return found }
    // NB: each folder walked gets what was found at or above it; a walk cut short by the bound
    // answers only for where it started (it never looked above the folders it walked).
    let answered = levels < 64 || found != nil ? walked : [path]
    cache.withLock { cache in
      for folder in answered { cache[folder] = found }
    }
    return found
  }
}
