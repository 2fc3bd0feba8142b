import Dispatch
import Foundation
import Synchronization

/// Watches files for changes made by other processes, with one watcher for the whole process.
///
/// Each file is watched through its folder, and the folders' watches are shared: the first
/// subscriber in a folder adds the folder's watch, the last one's cancellation removes it, and
/// each subscriber is told only about its own file's name. A file whose folder does not exist
/// yet (an app's first launch) is waited for: the deepest existing ancestor is watched until
/// the missing folders appear, and once the file's own folder is watched the subscriber is told
/// once, since the file may have been written before. The same happens when a watched folder is
/// removed and created again.
///
/// A file rewritten in place (opened, written and closed without a rename) is seen too: by the
/// folder's watch where it reports that (inotify), else by a watch of the file itself, which
/// moves to the new file after each atomic replace (see ``FolderWatchBackend`` for the contract,
/// `FolderWatcher+Files.swift` for the bookkeeping).
///
/// NB: watching the file alone is not enough. An atomic replace by another process renames a new
/// inode over the old one; a watch on the old inode gets `DELETE_SELF`, `IGNORED` and dies
/// (measured with inotify). The folder's watch sees `MOVED_TO target` and keeps working.
///
/// > Important: A watch the system refuses (past its limit of watches, or without permission)
/// > is never silent blindness: the subscription is still returned, ``failures`` says which file
/// > is blind and why, and the watch is retried whenever another watch is released.
///
/// NB: a rename of an *ancestor* of a watched folder is not noticed (the watch follows the
/// folder to its new path, and no event says so); a rename or removal of the folder itself is.
///
/// `onChange` runs on the watcher's serial queue, shared by every subscriber: it must return
/// quickly, handing any real work to its own queue. After `cancel()` returns it is not called
/// again, except by a call that had already begun.
package final class FolderWatcher: Sendable {
  /// The process's watcher, behind ``watch(_:onChange:)``.
  static let shared = FolderWatcher()

  private let state: Mutex<State>
  private let queue: DispatchQueue

  /// Creates a watcher with its own system watcher (an inotify instance on Linux), created on
  /// the first subscription; `faultHook` can make its system calls fail (a test seam).
  convenience init(faultHook: WatchFaultHook? = nil) {
    self.init { queue in PlatformFolderWatch(queue: queue, faultHook: faultHook) }
  }

  /// Creates a watcher over the backend `makeBackend` makes for the watcher's queue, with at most
  /// `fileWatchLimit` watches of files (for a backend whose folder watch misses writes in place).
  init(
    fileWatchLimit: Int = FileWatches.defaultLimit,
    makeBackend: (DispatchQueue) -> any FolderWatchBackend
  ) {
    let queue = DispatchQueue(label: "keepsake.folder-watcher")
    self.queue = queue
    self.state = Mutex(State(backend: makeBackend(queue), fileWatchLimit: fileWatchLimit))
    state.withLock { $0.backend.deliver = { [weak self] events in self?.receive(events) } }
  }

  deinit {
    state.withLock { $0.backend.shutDown() }
  }

  #if os(Linux) || os(Android)
    /// Whether the inotify reader thread has closed its descriptors and ended (for tests: a
    /// watcher that goes away must not leave either behind).
    var readerStopped: @Sendable () -> Bool {
      let flag = state.withLock { ($0.backend as? InotifyWatcher)?.readerStopped }
      return { flag?.isSet.load(ordering: .acquiring) ?? true }
    }
  #endif

  /// The files of the process's live subscriptions that are not watched right now, and why.
  package static var failures: [WatchFailure] { shared.failures }

  /// How many folders the process's watcher watches (files' folders and awaited ancestors).
  package static var watchedFolderCount: Int { shared.watchedFolderCount }

  /// How many live subscriptions the process's watcher has.
  static var subscriberCount: Int { shared.subscriberCount }

  // MARK: - One watcher

  /// Calls `onChange` when the file at `url` may have been changed by someone else.
  ///
  /// `url` is an absolute path with its links resolved, as keys resolve their file once.
  func subscribe(
    _ url: URL, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    subscribe(path: url.path, onChange: onChange)
  }

  /// ``subscribe(_:onChange:)`` of the file at `path`.
  ///
  /// NB: the path as a string, split once: URL's path operations cost more than the rest of a
  /// subscription on Linux (see "Costs the code avoids" in `Benchmarks/README.md`).
  func subscribe(
    path: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    add(WatchRoute(subscriber: WatchSubscriber(onChange), path: path))
  }

  /// ``subscribe(path:onChange:)`` of a file, and ``subscribe(entriesAt:matching:onChange:)``
  /// of its folder, as one subscription: `onEntries` is called for the names `entriesMatching`
  /// accepts, `onChange` for the file's own.
  ///
  /// NB: one route where a file key made two (a tenth of its creation).
  func subscribe(
    path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
    onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    add(
      WatchRoute(
        subscriber: WatchSubscriber(onChange), path: path,
        entries: (entriesMatching, WatchSubscriber(onEntries))))
  }

  private func add(_ route: WatchRoute) -> StorageSubscription {
    let (id, due) = state.withLock { state in
      let id = state.add(route)
      var due = state.place(id)
      due += state.retryFailedIfDue()
      return (id, due)
    }
    deliverSoon(due)
    return StorageSubscription(
      onCancel: { self.cancel(id) },
      failure: { [weak self] in self?.state.withLock { $0.failure(of: id) } })
  }

  /// Calls `onChange` when an entry of `folder` whose name `matching` accepts may have been
  /// created or replaced: the conflict copies sync engines put beside a file.
  ///
  /// `matching` runs on this watcher's queue, under its lock, for every name an event of the
  /// folder carries: it must be quick.
  func subscribe(
    entriesOf folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    subscribe(entriesAt: folder.path, matching: matching, onChange: onChange)
  }

  /// ``subscribe(entriesOf:matching:onChange:)`` of the folder at `path`.
  func subscribe(
    entriesAt path: String, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    // NB: a route like a file's, in the same folder, whose name test is `matching`.
    // NB: `path` is a resolved key's folder, already standard: no URL standardization here,
    // which would be a sizable part of a file key's creation.
    add(
      WatchRoute(
        subscriber: WatchSubscriber(onChange),
        path: (path == "/" ? "" : path) + "/.keepsake-entries", names: matching))
  }

  /// The files of this watcher's live subscriptions that are not watched right now, and why.
  var failures: [WatchFailure] {
    state.withLock { state in
      state.routes.keys.compactMap { state.failure(of: $0) }.sorted {
        ($0.file, $0.folder) < ($1.file, $1.folder)
      }
    }
  }

  /// The folders this watcher watches: files' folders and the ancestors missing ones are awaited
  /// in.
  var watchedFolders: Set<String> { state.withLock { Set($0.folders.keys) } }

  /// How many folders this watcher watches.
  var watchedFolderCount: Int { state.withLock { $0.folders.count } }

  /// How many live subscriptions this watcher has.
  var subscriberCount: Int { state.withLock { $0.routes.count } }

  private func cancel(_ id: Int) {
    let due = state.withLock { state in
      state.remove(id)
      return state.retryFailedIfDue()
    }
    deliverSoon(due)
  }

  /// Handles a batch of the backend's events; runs on `queue`.
  private func receive(_ events: [FolderEvent]) {
    let due = state.withLock { state in
      var due: [WatchSubscriber] = []
      for event in events { due += state.handle(event) }
      return due + state.retryFailedIfDue()
    }
    Self.call(due)
  }

  /// Calls subscribers later on `queue`, never from inside `subscribe` or `cancel`, whose
  /// callers may hold their own locks.
  private func deliverSoon(_ due: [WatchSubscriber]) {
    guard !due.isEmpty else { return }
    queue.async { Self.call(due) }
  }

  /// Calls each subscriber once, outside the lock (a subscriber may subscribe or cancel).
  private static func call(_ due: [WatchSubscriber]) {
    var called: Set<ObjectIdentifier> = []
    for subscriber in due where called.insert(ObjectIdentifier(subscriber)).inserted {
      if subscriber.isActive.load(ordering: .acquiring) { subscriber.onChange() }
    }
  }
}

/// One subscription's callback.
final class WatchSubscriber: Sendable {
  let onChange: @Sendable () -> Void
  /// Cleared by cancellation, so a batch collected before it calls nothing.
  let isActive = Atomic(true)

  init(_ onChange: @escaping @Sendable () -> Void) { self.onChange = onChange }
}
