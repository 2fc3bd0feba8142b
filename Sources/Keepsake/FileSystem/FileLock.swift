import Foundation
import Synchronization

/// An exclusive lock on a file, shared with other processes, held until released.
///
/// A ``FileSystem`` hands one out from ``FileSystem/lockExclusively(_:timeout:)``. Keepsake holds
/// it across the check-and-write of every save of a file key, and across a transaction (data-safety
/// rule "Processes that share a file lose nothing"; see the Data safety article). It is released by
/// ``release()`` or, at the latest, when the lock is deinitialized; a process that dies releases
/// its locks with it.
package final class FileLock: Sendable {
  private let onRelease: Mutex<(@Sendable () -> Void)?>

  /// How long ``FileSystem/lockExclusively(_:timeout:)`` waits by default before it gives up.
  ///
  /// Long enough for any number of other processes' saves to go first, short enough that a
  /// stuck process that holds the lock gets a clear error instead of a silent hang.
  package static let defaultTimeout: Duration = .seconds(30)

  /// A held lock that runs `release` once, when released or deinitialized.
  package init(release: @escaping @Sendable () -> Void) {
    self.onRelease = Mutex(release)
  }

  /// Releases the lock; releasing it again does nothing.
  package func release() {
    let release = onRelease.withLock { release in
      defer { release = nil }
      return release
    }
    release?()
  }

  deinit { release() }

  /// The lock file that stands for `url`: beside it, named `<name>.lock`, with the name
  /// shortened (see `FileName`) when that would be longer than a file system allows.
  ///
  /// NB: never the target itself. An atomic save renames a new inode over the target, and a
  /// lock held on the old inode would then protect nothing (measured with `flock`).
  static func lockFileURL(for url: URL) -> URL {
    url.deletingLastPathComponent().appendingPathComponent(lockFileName(for: url.lastPathComponent))
  }

  /// The name of the lock file of the file named `name`.
  package static func lockFileName(for name: String) -> String {
    FileName.fitting(name, within: FileSystemLimits.maximumNameLength - suffix.utf8.count)
      + suffix
  }

  private static let suffix = ".lock"

  /// How many locks this process holds on each lock file, by path.
  private static let held = Mutex<[String: Int]>([:])

  /// Records that this process took (`true`) or released (`false`) the lock file at `path`.
  static func holding(_ path: String, _ taken: Bool) {
    held.withLock { held in
      let count = (held[path] ?? 0) + (taken ? 1 : -1)
      held[path] = count > 0 ? count : nil
    }
  }

  /// Whether this process holds the lock file at `path` now: a lock that stays held by this
  /// very process is worth a different error than one held by another.
  static func heldHere(_ path: String) -> Bool {
    held.withLock { $0[path] != nil }
  }
}
