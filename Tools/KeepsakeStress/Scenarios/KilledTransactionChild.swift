import Foundation
import Keepsake

/// The process of the killed transaction scenario (issue: "A transaction's half-done value is
/// written, and a kill leaves it").
///
/// Inside `withTransaction` it removes `x`, asks for a flush (a save inside a transaction is part
/// of it) with a coalescing interval of a millisecond, says `halfway`, and then waits, as a body
/// that awaits a slow step would, to append `x` edited. The parent reads the file while it waits
/// and then kills it: neither may see the file without `x`.
public enum KilledTransactionChild {
  /// Runs the scenario on `url`, whose list must hold `x`; it never returns on its own.
  public static func run(url: URL) async -> Int32 {
    @Shared(.fileStorage(url, saveInterval: .milliseconds(1))) var items: [ScenarioItem] = []
    do {
      try await $items.withTransaction {
        $items.withLock { $0.removeAll { $0.id == "x" } }
        try await $items.flush()
        StandardOutput.write("halfway")
        try await Task.sleep(for: .seconds(3_600))
        $items.withLock { $0.append(ScenarioItem("x", text: "edited")) }
      }
    } catch {
      StandardOutput.write("transaction failed: \(error)")
      return 1
    }
    return 0
  }
}
