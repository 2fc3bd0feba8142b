import Foundation
import Keepsake

/// The child process of the exit-flush check: it changes a file key whose coalesced save would
/// come an hour later, then lets the process exit, so only the exit-time flush can write the
/// change.
public enum ExitFlushChild {
  /// Appends `[1, 2, 3]` to the `[Int]` stored at `url` and returns without saving.
  public static func run(url: URL) {
    @Shared(.fileStorage(url, saveInterval: .seconds(3_600))) var numbers: [Int] = []
    $numbers.withLock { $0.append(contentsOf: [1, 2, 3]) }
  }
}
