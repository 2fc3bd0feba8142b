import Dispatch
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The operating system's half of ``FolderWatcher``: kernel watches of folders (and, where those
/// miss writes, of files), and their events.
///
/// ## The contract
///
/// Together with the watcher's bookkeeping, a backend reports every change another process can
/// make to a subscribed file:
///
/// - an entry of a watched folder created, removed, or renamed into or out of it (an atomic
///   replace is a rename into it);
/// - **a watched file's contents written in place**: opened without a rename, written, closed,
///   with or without truncating first, the same size as before or not (a non-atomic
///   `Data.write`, an editor, an app extension, `UserDefaults` on Linux);
/// - the watched folder itself gone, and events dropped.
///
/// A backend whose folder watch reports writes to the folder's files says so with
/// ``folderWatchSeesWrites`` (inotify does: `IN_CLOSE_WRITE` on the folder's watch). One whose
/// folder watch does not (a Darwin vnode source on a folder reports entries added, removed and
/// renamed only) gets ``addFileWatch(_:)`` for each subscribed file; which files those are,
/// watching the new file after an atomic replace made a new inode, closing the watch on the last
/// unsubscription and the limit on descriptors are the watcher's shared bookkeeping
/// (`FolderWatcher+Files.swift`), so the backend only makes and cancels the system's watches.
///
/// A backend is a value kept inside the watcher's lock, so every method runs under that lock; it
/// delivers events on the watcher's queue through `deliver`, never under the lock. Reference
/// counts, subscribers and missing folders are the watcher's business, not the backend's.
protocol FolderWatchBackend {
  /// Creates a backend whose events are delivered on `queue`.
  init(queue: DispatchQueue, faultHook: WatchFaultHook?)

  /// Whether a folder's watch reports a file of the folder written in place; when it does not,
  /// the watcher also watches each subscribed file through ``addFileWatch(_:)``.
  var folderWatchSeesWrites: Bool { get }

  /// Where events go; set once, before the first ``addWatch(_:)``.
  var deliver: @Sendable ([FolderEvent]) -> Void { get set }

  /// Starts watching the folder at `path`; returns a token naming the watch in events.
  ///
  /// Two paths of one folder (through a link) may return the same token.
  mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure>

  /// Stops the watch `token`, which may already be gone (its folder was deleted).
  mutating func removeWatch(_ token: Int)

  /// Starts watching the regular file at `path` itself, for writes in place, for the backends
  /// whose folder watch does not see them; returns a token naming the watch in
  /// ``FolderEvent/file(token:)`` events, distinct from every live token.
  ///
  /// The watch follows the file, not the name: after an atomic replace it watches the old file,
  /// and the watcher replaces it.
  mutating func addFileWatch(_ path: String) -> Result<Int, WatchCallFailure>

  /// Stops the file watch `token`.
  mutating func removeFileWatch(_ token: Int)

  /// Stops every watch and releases the system's resources.
  mutating func shutDown()
}

/// A test seam: runs before each system call that sets up a watch; returning an `errno` makes
/// that call fail with it, returning nil lets the real call run.
///
/// The path is the folder for ``WatchFailure/Operation/addWatch``, the file for
/// ``WatchFailure/Operation/watchFile`` and empty for ``WatchFailure/Operation/createInstance``.
typealias WatchFaultHook =
  @Sendable (_ operation: WatchFailure.Operation, _ path: String)
  -> Int32?

/// What a backend saw.
enum FolderEvent: Equatable, Sendable {
  /// An entry of the watched folder was created, written, renamed or removed. The name is nil
  /// where the system does not say which (a Darwin vnode's `.write`).
  case entry(token: Int, name: String?)
  /// The watched folder itself is gone (deleted, renamed away or unmounted); its watch is dead.
  case folderGone(token: Int)
  /// A watched file was written, or its name now leads elsewhere (it was renamed, removed or
  /// replaced): the watcher looks at the name again.
  case file(token: Int)
  /// The system dropped events: anything may have changed.
  case overflow
}

/// A system call of a backend that failed.
struct WatchCallFailure: Error, Equatable {
  var operation: WatchFailure.Operation
  var code: Int32

  /// The folder is not there (any more): the watcher waits in its parent instead.
  var isMissingFolder: Bool { operation == .addWatch && isMissing }

  /// Nothing is at the path (any more): for a file, not a failure; its folder's watch says when
  /// one appears.
  var isMissing: Bool { code == ENOENT || code == ENOTDIR }
}

#if os(Linux) || os(Android)
  typealias PlatformFolderWatch = InotifyWatcher
#elseif canImport(Darwin)
  typealias PlatformFolderWatch = DispatchFolderWatcher
#else
  typealias PlatformFolderWatch = UnavailableFolderWatch

  /// A platform without a folder watcher: every watch fails, and says so.
  struct UnavailableFolderWatch: FolderWatchBackend {
    var deliver: @Sendable ([FolderEvent]) -> Void = { _ in }
    var folderWatchSeesWrites: Bool { true }
    init(queue: DispatchQueue, faultHook: WatchFaultHook?) {}
    mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      .failure(WatchCallFailure(operation: .createInstance, code: ENOSYS))
    }
    mutating func removeWatch(_ token: Int) {}
    mutating func addFileWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      .failure(WatchCallFailure(operation: .watchFile, code: ENOSYS))
    }
    mutating func removeFileWatch(_ token: Int) {}
    mutating func shutDown() {}
  }
#endif
