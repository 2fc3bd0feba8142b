import Dispatch
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The operating system's half of ``FolderWatcher``: one kernel watch per folder, and its events.
///
/// A backend is a value kept inside the watcher's lock, so every method runs under that lock; it
/// delivers events on the watcher's queue through `deliver`, never under the lock. Reference
/// counts, subscribers and missing folders are the watcher's business, not the backend's.
protocol FolderWatchBackend {
  /// Creates a backend whose events are delivered on `queue`.
  init(queue: DispatchQueue, faultHook: WatchFaultHook?)

  /// Where events go; set once, before the first ``addWatch(_:)``.
  var deliver: @Sendable ([FolderEvent]) -> Void { get set }

  /// Starts watching the folder at `path`; returns a token naming the watch in events.
  ///
  /// Two paths of one folder (through a link) may return the same token.
  mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure>

  /// Stops the watch `token`, which may already be gone (its folder was deleted).
  mutating func removeWatch(_ token: Int)

  /// Stops every watch and releases the system's resources.
  mutating func shutDown()
}

/// A test seam: runs before each system call that sets up a watch; returning an `errno` makes
/// that call fail with it, returning nil lets the real call run.
///
/// The path is the folder for ``WatchFailure/Operation/addWatch`` and empty for
/// ``WatchFailure/Operation/createInstance``.
package typealias WatchFaultHook =
  @Sendable (_ operation: WatchFailure.Operation, _ path: String)
  -> Int32?

/// What a backend saw.
enum FolderEvent: Equatable, Sendable {
  /// An entry of the watched folder was created, written, renamed or removed. The name is nil
  /// where the system does not say which (a Darwin vnode's `.write`).
  case entry(token: Int, name: String?)
  /// The watched folder itself is gone (deleted, renamed away or unmounted); its watch is dead.
  case folderGone(token: Int)
  /// The system dropped events: anything may have changed.
  case overflow
}

/// A system call of a backend that failed.
struct WatchCallFailure: Error, Equatable {
  var operation: WatchFailure.Operation
  var code: Int32

  /// The folder is not there (any more): the watcher waits in its parent instead.
  var isMissingFolder: Bool { operation == .addWatch && (code == ENOENT || code == ENOTDIR) }
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
    init(queue: DispatchQueue, faultHook: WatchFaultHook?) {}
    mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      .failure(WatchCallFailure(operation: .createInstance, code: ENOSYS))
    }
    mutating func removeWatch(_ token: Int) {}
    mutating func shutDown() {}
  }
#endif
