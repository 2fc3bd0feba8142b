import Foundation
import KeepsakeTesting
import Testing

@testable import keepsake_bench

/// Runs every benchmark scenario once at the smallest size, so the benchmark keeps working, and
/// checks what its figures rest on.
///
/// No timing is asserted: figures are only meaningful as ratios in a release build. Counts are
/// asserted (fsyncs, keys that saw a change, writes), and so is every check a scenario makes of
/// its own work.
@Suite("Benchmark scenarios")
struct BenchmarkScenarioTests {
  @Test("Every scenario runs at the smallest size and its checks hold")
  func everyScenarioRuns() async throws {
    let temporary = try TemporaryFolder()
    // The benchmark makes its own folder.
    var benchmark = Benchmark(folder: temporary.file("bench"))
    benchmark.sizes = [1_000]
    benchmark.repetitions = 1
    benchmark.fileRepetitions = 1
    // NB: large enough that its first load outlasts the small keys made beside it, even on a
    // loaded machine (the scenario checks that it did).
    benchmark.largeLoadDrafts = 40_000
    benchmark.besideLoadKeys = 20
    benchmark.besideLoadRounds = 1
    benchmark.processesWork = (processes: 2, transactions: 5)
    benchmark.processRepetitions = 1
    // NB: the benchmark's own child entry, as the release run starts it: `keepsake-bench` is
    // built beside the test bundle.
    let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("keepsake-bench")
    try #require(FileManager.default.isExecutableFile(atPath: bench.path))
    benchmark.processesChild = (bench.path, ["--processes-child"])
    let results = try await benchmark.run()
    #expect(
      Set(results.map(\.scenario)) == [
        "durable-save", "durable-save cpu", "durable-save fsyncs", "large-save", "large-save cpu",
        "large-save fsyncs", "transaction",
        "transaction cpu", "transaction fsyncs", "cold-load", "cold-load cpu", "migrated-load",
        "migrated-load cpu", "caller-mutation", "coalescing", "in-memory-mutation",
        "projected-mutation", "inline-projection", "in-memory-append", "in-memory-keys",
        "in-memory-keys drop",
        "observed-increment", "observed-append", "observed-read",
        "tracked-increment", "keys-create", "keys-memory", "keys-descriptors", "keys-watch",
        "keys-watch-latency", "keys-beside-large-load", "processes", "processes by-hand",
        "processes protocol", "processes cpu", "processes in-lock", "processes write-calls",
      ])
    for result in results {
      #expect(result.failure == nil, "\(result.scenario): \(result.failure ?? "")")
      #expect(result.keepsake.median > 0 || result.unit != .seconds, "\(result.scenario)")
      if let baseline = result.baseline {
        #expect(baseline.min > 0, "\(result.scenario)")
        #expect(baseline.min <= baseline.median && baseline.median <= baseline.max)
      }
    }
    for scenario in ["durable-save fsyncs", "large-save fsyncs", "transaction fsyncs"] {
      let fsyncs = try #require(results.first { $0.scenario == scenario })
      #expect(
        fsyncs.keepsake.median == 2,
        #"data-safety rule "Writes are atomic and durable" (DataSafety.md): a file and its folder"#)
      #expect(fsyncs.baseline?.median == 2)
      #expect(fsyncs.meetsTarget)
    }
    let watch = try #require(results.first { $0.scenario == "keys-watch" })
    #expect(watch.keepsake.median == 1_000, "every live key saw its file change")
    let coalescing = try #require(results.first { $0.scenario == "coalescing" })
    #expect(coalescing.keepsake.median <= 5)
    let processes = try #require(results.first { $0.scenario == "processes" })
    #expect(processes.size == 10, "2 processes × 5 transactions, every one acknowledged")
    #expect(processes.perItem)
    let byHand = try #require(results.first { $0.scenario == "processes by-hand" })
    #expect(byHand.size == 10, "2 processes × 5 transactions")
    #expect(byHand.keepsake == processes.keepsake, "the same Keepsake runs as the SQLite row")
    let bare = try #require(results.first { $0.scenario == "processes protocol" })
    #expect(bare.keepsake == processes.keepsake)
    #expect(bare.baseline != byHand.baseline, "two floors, measured apart")
    let processor = try #require(results.first { $0.scenario == "processes cpu" })
    #expect(processor.keepsake.median > 0, "each process says its processor time")
    let inLock = try #require(results.first { $0.scenario == "processes in-lock" })
    #expect(inLock.ratio.map { $0 >= 1 } == true, "a transaction's write is inside its hold")
    let writeCalls = try #require(results.first { $0.scenario == "processes write-calls" })
    #expect(writeCalls.baseline == processes.baseline, "against the same SQLite runs")
    #expect(writeCalls.keepsake == inLock.baseline)
    let mutation = try #require(results.first { $0.scenario == "caller-mutation" })
    #expect(mutation.note == "no file I/O on caller")
  }

  @Test("The JSON of a result carries its figures, and its ratio is theirs")
  func jsonCarriesTheFigures() throws {
    let result = BenchmarkResult(
      "durable-save cpu", size: 1_000, keepsake: [3, 1, 2], baseline: [1, 2, 4],
      target: .ratioAtMost(1.1))
    let data = try JSONSerialization.data(withJSONObject: [result.json])
    let parsed = try #require(
      try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    ).first
    let keepsake = try #require(parsed?["keepsake"] as? [String: Double])
    let baseline = try #require(parsed?["baseline"] as? [String: Double])
    #expect(keepsake == ["median": 2, "min": 1, "max": 3])
    #expect(baseline == ["median": 2, "min": 1, "max": 4])
    #expect(parsed?["ratio"] as? Double == 1.0)
    // The repetitions' own ratios: 3/1, 1/2, 2/4.
    #expect(parsed?["ratio-spread"] as? [String: Double] == ["median": 0.5, "min": 0.5, "max": 3])
    #expect(parsed?["met"] as? Bool == true)
  }

  @Test(
    "A row meets its target by its kind",
    arguments: [
      (BenchmarkResult.Target.ratioAtMost(1.10), [1.2], [1.0], false),
      (.ratioAtMost(1.10), [1.05], [1.0], true),
      (.equalToBaseline, [2], [2], true),
      (.equalToBaseline, [1], [2], false),
      (.report, [9], [1], true),
    ])
  func targets(
    target: BenchmarkResult.Target, keepsake: [Double], baseline: [Double], met: Bool
  ) {
    let result = BenchmarkResult(
      "row", size: 1, keepsake: keepsake, baseline: baseline, target: target)
    #expect(result.meetsTarget == met)
  }

  @Test("A failed check misses the target whatever the figures")
  func failedCheck() {
    var result = BenchmarkResult(
      "row", size: 1, keepsake: [1], baseline: [1], target: .ratioAtMost(2))
    #expect(result.meetsTarget)
    result.failure = "a key missed its change"
    #expect(!result.meetsTarget)
    #expect(result.tableRow.contains("MISSED"))
  }

  @Test("The fsyncs are read from strace's summary, other calls left out")
  func straceSummary() {
    let summary = """
      % time     seconds  usecs/call     calls    errors syscall
      ------ ----------- ----------- --------- --------- ----------------
       90.00    0.003512         878         4           fsync
       10.00    0.000100          50         2         1 fdatasync
        0.00    0.000000           0         7           write
      ------ ----------- ----------- --------- --------- ----------------
      100.00    0.003612         451         6         1 total
      """
    #expect(FsyncCount.calls(inSummary: summary) == 6)
  }

  @Test(
    "Growth is named from the exponent between two sizes",
    arguments: [(1.0, 1.3, "constant"), (1.0, 10.0, "linear"), (1.0, 100.0, "quadratic")])
  func growth(from: Double, to: Double, name: String) {
    let exponent = ScalingReport.exponent(from, to, 1_000, 10_000)
    #expect(ScalingReport.describe(exponent).hasPrefix(name))
  }

  @Test("Spreads: the median of an even count is the mean of the middle two")
  func spread() {
    #expect(Spread([4, 1, 3, 2]) == Spread([2.5, 1, 4]))
    #expect(Spread([5]).isSingle)
  }

  @Test("Peak memory is read from the process status")
  func peakMemory() throws {
    let bytes = try #require(MemoryChild.peakResidentBytes())
    #expect(bytes > 1_000_000)
  }
}
