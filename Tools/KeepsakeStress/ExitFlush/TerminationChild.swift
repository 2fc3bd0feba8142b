import Foundation
import Keepsake

/// The process of the termination-signal check: it asks Keepsake to flush on `SIGTERM` and
/// `SIGINT`, changes a file key whose coalesced save is an hour away, says `ready`, and waits to
/// be signalled; only the termination flush can write the change.
public enum TerminationChild {
  /// Appends `[1, 2, 3]` to the `[Int]` stored at `url`, then waits for a signal.
  public static func run(url: URL) async -> Int32 {
    StorageContext.flushOnTermination()
    @Shared(.fileStorage(url, saveInterval: .seconds(3_600))) var numbers: [Int] = []
    $numbers.withLock { $0.append(contentsOf: [1, 2, 3]) }
    StandardOutput.write("ready")
    while true { try? await Task.sleep(for: .seconds(3_600)) }
  }
}
