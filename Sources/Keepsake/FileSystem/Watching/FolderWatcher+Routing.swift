import Foundation

/// Where one subscription's file is, and which folder is watched for it.
struct WatchRoute {
  let subscriber: WatchSubscriber
  /// The file's path, as subscribed.
  let file: String
  /// The file's name, which events name.
  let fileName: String
  /// How many components the file's folder has.
  let folderCount: Int
  /// How many components of the file's folder the watched folder has: `folderCount` once the
  /// file's own folder is watched, fewer while a missing folder is awaited, nil when nothing
  /// could be watched.
  var depth: Int?
  /// Why nothing is watched, when `depth` is nil.
  var failure: WatchFailure?
  /// The subscriber was blind for a while (its folder was missing, or could not be watched): it
  /// is told once its own folder is watched, since the file may have changed meanwhile.
  var owesCatchUp = false
  /// For a watch of a folder's entries (sync engines' conflict copies), which names it wants,
  /// instead of `fileName`.
  let names: (@Sendable (String) -> Bool)?
  /// For a file's watch that also watches its folder's entries (see
  /// ``FolderWatcher/subscribe(path:entriesMatching:onEntries:onChange:)``): which names those
  /// are, and who is told of them.
  let entries: (names: @Sendable (String) -> Bool, subscriber: WatchSubscriber)?

  /// The path of the file's own folder, which nearly every lookup asks for.
  private let ownFolderPath: String

  /// NB: the folder's components are made only for a route that waits in an ancestor: splitting
  /// and joining them was paid for nothing in each of a file key's two routes, whose folder is
  /// nearly always watched already.
  init(
    subscriber: WatchSubscriber, path: String, names: (@Sendable (String) -> Bool)? = nil,
    entries: (names: @Sendable (String) -> Bool, subscriber: WatchSubscriber)? = nil
  ) {
    self.subscriber = subscriber
    self.entries = entries
    self.file = path
    let count: Int
    if path != "/", PathScan.isStandard(path), let (parent, name) = PathScan.split(path) {
      // The usual path: its folder and name found as bytes, its components counted by slashes.
      fileName = name
      ownFolderPath = parent
      count = PathScan.slashCount(in: path) - 1
    } else {
      var components = FolderPath.components(path)
      fileName = components.popLast() ?? ""
      ownFolderPath = FolderPath.path(components, count: components.count)
      count = components.count
    }
    folderCount = count
    self.names = names
  }

  /// Whether an event naming `name` concerns this route's file.
  func wants(_ name: String) -> Bool { names?(name) ?? (name == fileName) }

  /// Adds the subscribers an event of the own folder naming `name` concerns (every one for an
  /// event without a name) to `due`.
  func collect(_ name: String?, into due: inout [WatchSubscriber]) {
    guard let name else { return collectAll(into: &due) }
    if wants(name) { due.append(subscriber) }
    if let entries, entries.names(name) { due.append(entries.subscriber) }
  }

  /// Adds every subscriber of the route to `due`.
  func collectAll(into due: inout [WatchSubscriber]) {
    due.append(subscriber)
    if let entries { due.append(entries.subscriber) }
  }

  /// The path of the first `depth` components of the file's folder.
  func path(_ depth: Int) -> String {
    depth == folderCount ? ownFolderPath : FolderPath.path(folder, count: depth)
  }

  /// The components of the file's folder.
  var folder: [String] { FolderPath.components(ownFolderPath) }

  var watchesOwnFolder: Bool { depth == folderCount }
}

/// A folder with a system watch, and the subscriptions it serves.
struct WatchedFolder {
  let token: Int
  /// Which folder was at the path when the watch was added.
  let identity: FolderIdentity?
  var subscribers: Set<Int>
}

extension FolderWatcher {
  /// Everything a watcher knows; lives inside its lock, as does the backend.
  ///
  /// Every method returns the subscribers that are due a call; the caller calls them once it
  /// left the lock.
  struct State {
    var backend: any FolderWatchBackend
    var routes: [Int: WatchRoute] = [:]
    /// The watched folders by path; the reference count is the size of `subscribers`.
    var folders: [String: WatchedFolder] = [:]
    /// The paths of each system watch: one, or several for the same folder reached through a
    /// link (the kernel hands out one watch per folder, not per path).
    var pathsByToken: [Int: Set<String>] = [:]
    /// The subscribed files watched for writes in place, when the backend's folder watch misses
    /// them (`FolderWatcher+Files.swift`).
    var fileWatches: FileWatches
    private var nextID = 0
    /// A system watch was released, or the system watcher could be created after all: failed
    /// subscriptions may succeed now.
    private var retryDue = false
    private var instanceFailed = false

    init(backend: any FolderWatchBackend, fileWatchLimit: Int) {
      self.backend = backend
      self.fileWatches = FileWatches(
        isEnabled: !backend.folderWatchSeesWrites, limit: fileWatchLimit)
    }

    mutating func add(_ route: WatchRoute) -> Int {
      let id = nextID
      nextID += 1
      routes[id] = route
      return id
    }

    mutating func remove(_ id: Int) {
      // NB: cancellation may come more than once (`cancel()`, then `deinit`).
      guard let route = routes.removeValue(forKey: id) else { return }
      route.subscriber.isActive.store(false, ordering: .releasing)
      route.entries?.subscriber.isActive.store(false, ordering: .releasing)
      if let depth = route.depth { detach(id, from: route.path(depth)) }
      if route.names == nil { unfollowFile(id, path: route.file) }
    }

    /// Watches the deepest folder that exists on the way to the route's own folder, walking
    /// down as long as the next folder exists.
    ///
    /// NB: the next folder is checked *after* the watch of its parent was added: a folder
    /// created between the check that found it missing and the watch would otherwise never be
    /// reported (`mkdir -p` makes a whole chain at once).
    mutating func place(_ id: Int) -> [WatchSubscriber] {
      guard var route = routes[id] else { return [] }
      var depth = route.folderCount
      // NB: a new route whose folder is already watched needs no `stat`: the next key in a
      // folder costs a dictionary lookup.
      let ownFolder = route.path(depth)
      if route.depth == nil, route.failure == nil, !route.owesCatchUp, folders[ownFolder] != nil {
        _ = attach(id, to: ownFolder)
        route.depth = depth
        routes[id] = route
        updateFileWatch(for: id)
        return []
      }
      while depth > 0 && !FolderPath.isFolder(route.path(depth)) { depth -= 1 }
      if depth < route.folderCount { route.owesCatchUp = true }
      // The folder watched so far stays watched until the next one is, so nothing is missed.
      var watched = route.depth
      var failure: WatchFailure?
      while true {
        if case .failure(let cause) = attach(id, to: route.path(depth)) {
          if cause.isMissingFolder && depth > 0 {
            // Removed since it was seen: wait in its parent.
            depth -= 1
            route.owesCatchUp = true
            continue
          }
          failure = WatchFailure(
            file: route.file, folder: cause.operation == .addWatch ? route.path(depth) : "",
            operation: cause.operation, code: cause.code)
          break
        }
        if let watched, watched != depth { detach(id, from: route.path(watched)) }
        watched = depth
        guard depth < route.folderCount && FolderPath.isFolder(route.path(depth + 1)) else {
          break
        }
        depth += 1
      }
      if let failure {
        if let watched { detach(id, from: route.path(watched)) }
        route.depth = nil
        route.failure = failure
        route.owesCatchUp = true
        routes[id] = route
        updateFileWatch(for: id)
        return []
      }
      route.depth = watched
      route.failure = nil
      let caughtUp = route.watchesOwnFolder && route.owesCatchUp
      if caughtUp { route.owesCatchUp = false }
      routes[id] = route
      updateFileWatch(for: id)
      var due: [WatchSubscriber] = []
      if caughtUp { route.collectAll(into: &due) }
      return due
    }

    /// Applies one event of the backend.
    mutating func handle(_ event: FolderEvent) -> [WatchSubscriber] {
      switch event {
      case .entry(let token, let name):
        var due: [WatchSubscriber] = []
        for path in pathsByToken[token] ?? [] {
          for id in folders[path]?.subscribers ?? [] {
            // NB: a route placed earlier in this batch may have moved on.
            guard let route = routes[id], let depth = route.depth, route.path(depth) == path
            else { continue }
            if route.watchesOwnFolder {
              route.collect(name, into: &due)
              // The name may lead to another file now (an atomic replace): its watch follows.
              if name == nil || name == route.fileName { refreshFile(route.file) }
            } else if name == nil || name == route.folder[depth] {
              // The awaited folder may have appeared (IN_CREATE or IN_MOVED_TO with IN_ISDIR,
              // a link to a folder, or on Darwin anything at all): `place` checks.
              due += place(id)
            }
          }
        }
        return due
      case .folderGone(let token):
        return folderGone(token)
      case .file(let token):
        return fileChanged(token)
      case .overflow:
        return overflow()
      }
    }

    /// Re-places the subscribers of a folder whose watch died: they wait in an ancestor until
    /// it is back.
    private mutating func folderGone(_ token: Int) -> [WatchSubscriber] {
      // NB: unknown after this watcher removed the watch itself (the kernel then reports
      // IN_IGNORED too). Linux hands out watch descriptors cyclically, so a late IN_IGNORED is
      // not taken for a newer watch that got the same number.
      guard let paths = pathsByToken.removeValue(forKey: token) else { return [] }
      backend.removeWatch(token)
      retryDue = true
      var due: [WatchSubscriber] = []
      var ids: [Int] = []
      for path in paths {
        ids += folders.removeValue(forKey: path)?.subscribers ?? []
      }
      for id in ids {
        guard var route = routes[id] else { continue }
        // The file went with its folder (a rename of the folder reports no deletion of it).
        if route.watchesOwnFolder { route.collectAll(into: &due) }
        route.depth = nil
        route.owesCatchUp = true
        routes[id] = route
        due += place(id)
      }
      return due
    }

    /// The system dropped events: every subscriber re-checks its file, folders that were
    /// replaced meanwhile are watched again, and awaited folders are looked for.
    private mutating func overflow() -> [WatchSubscriber] {
      var due: [WatchSubscriber] = []
      refreshAllFiles()
      let replaced = folders.filter { FolderPath.identity($0.key) != $0.value.identity }
      for token in Set(replaced.values.map(\.token)) { due += folderGone(token) }
      for id in routes.keys.sorted() {
        guard let route = routes[id] else { continue }
        if route.watchesOwnFolder {
          route.collectAll(into: &due)
        } else {
          due += place(id)
        }
      }
      return due
    }

    /// Retries the subscriptions whose watch failed, when that may succeed now.
    mutating func retryFailedIfDue() -> [WatchSubscriber] {
      guard retryDue else { return [] }
      retryDue = false
      let failed = routes.filter { $0.value.failure != nil }.keys.sorted()
      return failed.flatMap { place($0) }
    }

    // MARK: - Reference counts

    /// Adds a subscriber to a folder, adding the folder's watch if it is the first.
    private mutating func attach(_ id: Int, to path: String) -> Result<Void, WatchCallFailure> {
      if folders[path] != nil {
        folders[path]?.subscribers.insert(id)
        return .success(())
      }
      switch backend.addWatch(path) {
      case .failure(let failure):
        if failure.operation == .createInstance { instanceFailed = true }
        return .failure(failure)
      case .success(let token):
        if instanceFailed {
          instanceFailed = false
          retryDue = true
        }
        folders[path] = WatchedFolder(
          token: token, identity: FolderPath.identity(path), subscribers: [id])
        pathsByToken[token, default: []].insert(path)
        return .success(())
      }
    }

    /// Removes a subscriber from a folder, removing the folder's watch if it was the last.
    private mutating func detach(_ id: Int, from path: String) {
      // NB: changed in place: a copy taken out of the dictionary shares its set of subscribers,
      // which the removal then copied whole (100 subscribers of a folder: a tenth of a file
      // key's creation and release).
      guard let index = folders.index(forKey: path) else { return }
      folders.values[index].subscribers.remove(id)
      guard folders.values[index].subscribers.isEmpty else { return }
      let folder = folders.remove(at: index).value
      pathsByToken[folder.token]?.remove(path)
      guard pathsByToken[folder.token]?.isEmpty ?? true else { return }
      pathsByToken[folder.token] = nil
      backend.removeWatch(folder.token)
      retryDue = true
    }
  }
}
