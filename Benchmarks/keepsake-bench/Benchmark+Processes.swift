import Foundation
import KeepsakeStress

/// Many processes running transactions on one file, against SQLite doing the same work on the
/// same disk in the same run: 8 processes × 200 `update` transactions, each adding one item,
/// against 8 `python3` processes × 200 `BEGIN IMMEDIATE; INSERT; COMMIT` in WAL mode with
/// `synchronous=FULL` (``TransactionThroughput``, shared with `keepsake-stress`'s processes
/// campaign).
///
/// The figure is the time of one transaction, all processes taking turns (the parallel phase
/// over the transactions). Against SQLite it is reported, for reference: SQLite appends a page
/// to its log and flushes it once, where this format writes the whole file to a new one, flushes
/// it, swaps it in and flushes the folder, so no library writing whole files reaches SQLite's
/// rate.
///
/// The target is set against the floor of the format itself: `processes protocol`, the same
/// transactions written by hand with Keepsake's write protocol as it stands and no Keepsake
/// (``ByHandTransactions``: the lock and its check, the look that reads the file only when it
/// changed, the temporary file with the file's permissions, the look again before the swap, the
/// swap and its check, the folder's flush; the item's bytes spliced into the file's, nothing
/// decoded or encoded), at most 1.3x. `processes by-hand` is the same work as a user would
/// write it (`flock`, Foundation's coders, a temporary file, `fsync`, `rename`, `fsync` of the
/// folder), and `processes cpu` the processor time of all processes per transaction, against
/// the protocol's.
///
/// Two rows say where Keepsake's transactions spent their time, from the same runs (each child
/// times its own system calls, ``LockTiming``): `processes in-lock`, the time a transaction holds
/// the file's lock (which every process takes in turn, so it sets the rate) against the write
/// protocol's calls within it (the temporary file, its flush, the rename, the folder's flush);
/// and `processes write-calls`, those calls alone against SQLite's whole transaction. Where that
/// last ratio is 2 or more, the target is out of reach of whole-file writes by the rule
/// "Writes are atomic and durable" (the Data safety article), whatever the library does around
/// them.
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
    var timings: [LockTiming] = []
    func keepsake() -> Double {
      let folder = file("processes-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let run = TransactionThroughput.keepsake(
        executable: child.executable, arguments: child.arguments, processes: processes,
        transactions: transactions, in: folder, timeout: 120)
      failures += run.failures.prefix(2)
      timings.append(run.timing)
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
    var protocolTimings: [LockTiming] = []
    func byHand(_ mode: ProcessesChild.Mode) -> Double {
      let folder = baselineFile("processes-\(mode.rawValue)-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let run = TransactionThroughput.byHand(
        mode, executable: child.executable, arguments: child.arguments, processes: processes,
        transactions: transactions, in: folder, timeout: 120)
      byHandFailures += run.failures.prefix(2)
      if mode == .protocolOnly { protocolTimings.append(run.timing) }
      return run.secondsPerTransaction
    }
    // NB: one unmeasured round of each side first (page cache, python's start), as
    // `alternateSync` does for two.
    _ = (keepsake(), sqlite(), byHand(.byHand), byHand(.protocolOnly))
    timings.removeAll()
    protocolTimings.removeAll()
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
      target: .report,
      note:
        "per transaction, \(label) each; baseline: SQLite (WAL, synchronous=FULL), which "
        + "appends to its log where this format writes the whole file")
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
      baseline: protocols, target: .ratioAtMost(1.3),
      note: "the same Keepsake runs; baseline: the protocol alone, without decoding or encoding")
    bare.perItem = true
    bare.failure = failures.first ?? byHandFailures.first
    let measured = timings.allSatisfy { $0.holds > 0 && $0.writes > 0 }
    let timingFailure = measured ? failures.first : "a Keepsake run did not say where its time went"
    var inLock = BenchmarkResult(
      "processes in-lock", size: processes * transactions,
      keepsake: timings.map(\.secondsPerHold), baseline: timings.map(\.protocolSecondsPerWrite),
      target: .report,
      note: "the same Keepsake runs, in the lock; baseline: the write protocol's calls in it")
    inLock.perItem = true
    inLock.failure = timingFailure
    var writeCalls = BenchmarkResult(
      "processes write-calls", size: processes * transactions,
      keepsake: timings.map(\.protocolSecondsPerWrite), baseline: sqlites, target: .report,
      note: "the same runs' write protocol calls; baseline: SQLite's whole transaction")
    writeCalls.perItem = true
    writeCalls.failure = timingFailure
    var processor = BenchmarkResult(
      "processes cpu", size: processes * transactions,
      keepsake: timings.map(\.processorSecondsPerHold),
      baseline: protocolTimings.map(\.processorSecondsPerHold), target: .report,
      note: "processor time of all processes per transaction; baseline: the protocol alone")
    processor.perItem = true
    processor.failure = timingFailure
    return [result, bare, processor, floor, inLock, writeCalls]
  }

  /// A row that could not be measured: it misses its target, and says why.
  private static func unmeasured(_ why: String, _ label: String) -> BenchmarkResult {
    var result = BenchmarkResult(
      "processes protocol", size: 0, keepsake: [0], baseline: [0], target: .ratioAtMost(1.3),
      note: label)
    result.failure = why
    return result
  }
}
