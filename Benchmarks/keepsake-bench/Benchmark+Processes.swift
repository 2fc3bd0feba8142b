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
///
/// Two more rows set the same Keepsake runs against the same transactions written by hand with
/// Keepsake's protocol and no Keepsake (``ByHandTransactions``): `processes by-hand` as a user
/// would write them (`flock`, Foundation's coders, a temporary file, `fsync`, `rename`, `fsync`
/// of the folder), and `processes protocol` the protocol alone (the item's bytes spliced into
/// the file's, nothing decoded or encoded). So the rows tell apart what the library costs and
/// what the protocol costs against SQLite's log: the protocol row's baseline over the SQLite
/// row's is the most any library writing whole files this way can reach.
///
/// The four sides are child processes released together by a start file, taking turns
/// repetition by repetition. Each Keepsake and by-hand repetition checks that the file holds
/// every acknowledged item exactly once.
extension Benchmark {
  func processes() -> [BenchmarkResult] {
    let (processes, transactions) = processesWork
    let label = "\(processes) processes × \(transactions) transactions"
    guard let child = processesChild else {
      return [Self.unmeasured("no child executable to run the processes", label)]
    }
    var failures: [String] = []
    var byHandFailures: [String] = []
    func keepsake() -> Double {
      let folder = file("processes-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let run = TransactionThroughput.keepsake(
        executable: child.executable, arguments: child.arguments, processes: processes,
        transactions: transactions, in: folder, timeout: 120)
      failures += run.failures.prefix(2)
      return run.secondsPerTransaction
    }
    func sqlite() -> Double {
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
    }
    func byHand(_ mode: ProcessesChild.Mode) -> Double {
      let folder = baselineFile("processes-\(mode.rawValue)-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let run = TransactionThroughput.byHand(
        mode, executable: child.executable, arguments: child.arguments, processes: processes,
        transactions: transactions, in: folder, timeout: 120)
      byHandFailures += run.failures.prefix(2)
      return run.secondsPerTransaction
    }
    // NB: one unmeasured round of each side first (page cache, python's start), as
    // `alternateSync` does for two.
    _ = (keepsake(), sqlite(), byHand(.byHand), byHand(.protocolOnly))
    var ours: [Double] = []
    var sqlites: [Double] = []
    var byHands: [Double] = []
    var protocols: [Double] = []
    for _ in 0..<processRepetitions {
      ours.append(keepsake())
      sqlites.append(sqlite())
      byHands.append(byHand(.byHand))
      protocols.append(byHand(.protocolOnly))
    }
    var result = BenchmarkResult(
      "processes", size: processes * transactions, keepsake: ours, baseline: sqlites,
      target: .ratioAtMost(2.0),
      note: "per transaction, \(label) each; baseline: SQLite (WAL, synchronous=FULL)")
    result.perItem = true
    result.failure = failures.first
    var floor = BenchmarkResult(
      "processes by-hand", size: processes * transactions, keepsake: ours, baseline: byHands,
      target: .report,
      note: "the same Keepsake runs; baseline: the same protocol by hand, without Keepsake")
    floor.perItem = true
    floor.failure = failures.first ?? byHandFailures.first
    var bare = BenchmarkResult(
      "processes protocol", size: processes * transactions, keepsake: ours,
      baseline: protocols, target: .report,
      note: "the same Keepsake runs; baseline: the protocol alone, without decoding or encoding")
    bare.perItem = true
    bare.failure = failures.first ?? byHandFailures.first
    return [result, floor, bare]
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
