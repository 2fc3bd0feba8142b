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

  /// The lock file that stands for `url`: beside it, named `<name>.lock`.
  ///
  /// NB: never the target itself. An atomic save renames a new inode over the target, and a
  /// lock held on the old inode would then protect nothing (measured with `flock`).
  static func lockFileURL(for url: URL) -> URL {
    url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".lock")
  }
}
