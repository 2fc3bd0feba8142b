import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A subscribed file watched for writes in place, for a backend whose folder watch misses them.
struct WatchedFile {
  /// The backend's token; nil while the file is not watched: missing (its folder's watch says
  /// when it appears), not a regular file, past the limit, or refused.
  var token: Int?
  /// Which file the watch is on; without a watch, which was at the path when last looked at.
  var identity: FolderIdentity?
  /// The subscriptions of the file.
  var routes: Set<Int> = []
  /// Why the file is there but not watched for writes in place (the limit, or the system).
  var failure: WatchFailure?
}

/// The files watched for writes in place: which names, the watch on the file each name leads to
/// now, and how many watches there may be.
///
/// NB: shared code, so Linux tests it with a backend of its own, though inotify needs none of it
/// (its folder watch reports `IN_CLOSE_WRITE`). On Apple platforms each file watch is a vnode
/// dispatch source holding a descriptor.
struct FileWatches {
  /// Whether files are watched at all: not when the backend's folder watch reports writes.
  let isEnabled: Bool
  /// The most file watches at once; the files past it are seen when replaced, not when rewritten
  /// in place, and say so in their subscription's failure.
  let limit: Int
  /// The subscribed files, by path.
  var files: [String: WatchedFile] = [:]
  /// The path of each live file watch.
  var pathsByToken: [Int: String] = [:]

  /// The limit of a process's watcher.
  ///
  /// NB: each watch holds a descriptor, and an app may have as few as 256 in all (the usual soft
  /// limit on Apple platforms), shared with its folder watches, its open files and everything
  /// else it uses; an app rarely has more file keys than this.
  static let defaultLimit = 64
}

extension FolderWatcher.State {
  /// Follows the file of route `id` for writes in place while its own folder is watched, and stops
  /// following it otherwise; called whenever the route is placed.
  mutating func updateFileWatch(for id: Int) {
    guard fileWatches.isEnabled, let route = routes[id], route.names == nil else { return }
    guard route.watchesOwnFolder else { return unfollowFile(id, path: route.file) }
    let isNew = fileWatches.files[route.file] == nil
    fileWatches.files[route.file, default: WatchedFile()].routes.insert(id)
    if isNew { armFile(route.file) }
  }

  /// Removes route `id` from the followers of the file at `path`; the last one's removal releases
  /// its watch, and a file refused for the limit may take the place.
  mutating func unfollowFile(_ id: Int, path: String) {
    guard fileWatches.isEnabled, let index = fileWatches.files.index(forKey: path) else { return }
    fileWatches.files.values[index].routes.remove(id)
    guard fileWatches.files.values[index].routes.isEmpty else { return }
    let file = fileWatches.files.remove(at: index).value
    if let token = file.token {
      fileWatches.pathsByToken[token] = nil
      backend.removeFileWatch(token)
      retryRefusedFiles()
    }
  }

  /// Handles an event of a file's watch: its subscribers are due a call, and the name is looked
  /// at again (the file may have been replaced or removed).
  mutating func fileChanged(_ token: Int) -> [WatchSubscriber] {
    // NB: a late event of a watch already replaced or released names no path any more.
    guard let path = fileWatches.pathsByToken[token], let file = fileWatches.files[path] else {
      return []
    }
    let due = file.routes.sorted().compactMap { routes[$0]?.subscriber }
    refreshFile(path)
    return due
  }

  /// Looks at the file's name again after an event that may have changed what it leads to: a
  /// new file (an atomic replace makes a new inode) gets the watch, a removed one loses it.
  mutating func refreshFile(_ path: String) {
    guard fileWatches.isEnabled, var file = fileWatches.files[path] else { return }
    let identity = FolderPath.fileIdentity(path)
    if let token = file.token {
      guard identity != file.identity else { return }
      fileWatches.pathsByToken[token] = nil
      backend.removeFileWatch(token)
      file.token = nil
      fileWatches.files[path] = file
      armFile(path)
      retryRefusedFiles()
    } else if identity != file.identity || file.failure != nil {
      armFile(path)
    }
  }

  /// Looks at every followed file again: events were dropped.
  mutating func refreshAllFiles() {
    for path in fileWatches.files.keys.sorted() { refreshFile(path) }
  }

  /// Why the file of route `id` is not watched right now: its folder could not be, or (its folder
  /// watched) the file itself could not be, for writes in place.
  func failure(of id: Int) -> WatchFailure? {
    guard let route = routes[id] else { return nil }
    if let failure = route.failure { return failure }
    guard fileWatches.isEnabled, route.names == nil, route.watchesOwnFolder else { return nil }
    return fileWatches.files[route.file]?.failure
  }

  /// Watches the file at `path` if it is a regular file and there is room for its watch.
  private mutating func armFile(_ path: String) {
    guard var file = fileWatches.files[path], file.token == nil else { return }
    // NB: the name is looked at *before* the watch is made. A file replaced in between is then
    // watched under an older identity, and the replace's event moves the watch again; looked at
    // after, the watch could stay on the old file under the new one's identity, for good.
    file.identity = FolderPath.fileIdentity(path)
    file.failure = nil
    if file.identity != nil {
      if fileWatches.pathsByToken.count >= fileWatches.limit {
        file.failure = WatchFailure(file: path, folder: "", operation: .watchFile, code: EMFILE)
      } else {
        switch backend.addFileWatch(path) {
        case .success(let token):
          file.token = token
          fileWatches.pathsByToken[token] = path
        case .failure(let cause) where cause.isMissing:
          // Gone since it was looked at: its folder's watch says when it is back.
          file.identity = nil
        case .failure(let cause):
          file.failure = WatchFailure(
            file: path, folder: "", operation: .watchFile, code: cause.code)
        }
      }
    }
    fileWatches.files[path] = file
  }

  /// Watches the files refused before, while there is room: a watch was released.
  private mutating func retryRefusedFiles() {
    let refused = fileWatches.files.filter { $0.value.failure != nil }.keys.sorted()
    for path in refused where fileWatches.pathsByToken.count < fileWatches.limit {
      armFile(path)
    }
  }
}
