import Foundation
import KeepsakeStress

/// Many processes running transactions on one file, against SQLite doing the same work on the
/// same disk in the same run: 8 processes × 200 `update` transactions, each adding one item,
/// against 8 `python3` processes × 200 `BEGIN IMMEDIATE; INSERT; COMMIT` in WAL mode with
/// `synchronous=FULL` (``TransactionThroughput``, shared with `keepsake-stress`'s processes
/// campaign).
///
/// The figure is the time of one transaction, all processes taking turns (the parallel phase
/// over the transactions); its target, a ratio of at most 2, is at least half of SQLite's rate.
/// Both sides are child processes released together by a start file, alternating repetition
/// by repetition. Each Keepsake repetition checks that the file holds every acknowledged item
/// exactly once.
extension Benchmark {
  func processes() -> BenchmarkResult {
    let (processes, transactions) = processesWork
    let label = "\(processes) processes × \(transactions) transactions"
    var failures: [String] = []
    guard let child = processesChild else {
      return Self.unmeasured("no child executable to run the processes", label)
    }
    let (keepsake, sqlite) = alternateSync(
      processRepetitions,
      keepsake: { () -> Double in
        let folder = file("processes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = TransactionThroughput.keepsake(
          executable: child.executable, arguments: child.arguments, processes: processes,
          transactions: transactions, in: folder, timeout: 120)
        failures += run.failures.prefix(2)
        return run.secondsPerTransaction
      },
      baseline: { () -> Double in
        let folder = baselineFile("processes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard
          let run = TransactionThroughput.sqlite(
            processes: processes, transactions: transactions, in: folder, timeout: 120)
        else {
          failures.append("sqlite: no python3 on PATH")
          return .infinity
        }
        failures += run.failures.prefix(2)
        return run.secondsPerTransaction
      })
    var result = BenchmarkResult(
      "processes", size: processes * transactions, keepsake: keepsake, baseline: sqlite,
      target: .ratioAtMost(2.0),
      note: "per transaction, \(label) each; baseline: SQLite (WAL, synchronous=FULL)")
    result.perItem = true
    result.failure = failures.first
    return result
  }

  /// A row that could not be measured: it misses its target, and says why.
  private static func unmeasured(_ why: String, _ label: String) -> BenchmarkResult {
    var result = BenchmarkResult(
      "processes", size: 0, keepsake: [0], baseline: [0], target: .ratioAtMost(2.0),
      note: label)
    result.failure = why
    return result
  }
}
