import DraftsFeature
import Foundation
import Keepsake
import Synchronization

/// Runs every scenario at every size, Keepsake against its baseline in the same process and run.
///
/// Each scenario's two sides alternate, repetition by repetition, after a warm-up of each; the
/// table shows the median with the smallest and largest figure, and the ratio of the medians
/// with the spread of the repetitions' own ratios.
struct Benchmark {
  var sizes: [Int] = [1_000, 10_000, 100_000]
  /// Repetitions of CPU-bound scenarios (in-memory, observed, caller mutations).
  var repetitions = 5
  /// Repetitions of fsync-bound and file-reading scenarios: at least 9, so the spread means
  /// something on a shared disk whose latency swings.
  var fileRepetitions = 9
  /// Where temporary files go; removed at the end.
  let folder: URL
  /// The benchmark executable, for the child processes of the peak-memory and fsync-count
  /// figures (`nil`: skip those figures).
  var executable: URL?
  var log: (String) -> Void = { _ in }
  /// Runs only the scenarios named here, when set (for profiling one scenario).
  var only: Set<String>?
  /// The drafts of the large file whose first load runs beside small keys' creation: 70,000
  /// make 20 MB.
  var largeLoadDrafts = 70_000
  /// The small keys created beside that load, and again without it.
  var besideLoadKeys = 300
  /// Rounds of that figure, alternating the two sides.
  var besideLoadRounds = 3
  /// The processes of the `processes` row, and the transactions each runs.
  var processesWork = (processes: 8, transactions: 200)
  /// Repetitions of the `processes` row (each side takes seconds).
  var processRepetitions = 5
  /// The program that runs one process of the `processes` row, and the words before its
  /// settings (`nil`: the row says it could not be measured).
  var processesChild: (executable: String, arguments: [String])?

  /// Every scenario, in the order the table shows them.
  static let scenarios = [
    "durable-save", "large-save", "transaction", "cold-load", "migrated-load", "caller-mutation",
    "coalescing",
    "in-memory-mutation", "projected-mutation", "inline-projection", "in-memory-append",
    "in-memory-keys", "observed-increment",
    "observed-append",
    "observed-read", "tracked-increment", "keys", "peak-memory", "processes",
  ]

  init(folder: URL) {
    self.folder = folder
  }

  func run() async throws -> [BenchmarkResult] {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: baselineFolder, withIntermediateDirectories: true)
    var results: [BenchmarkResult] = []
    for size in sizes {
      let drafts = SampleDrafts.make(size)
      log("size \(size)")
      func wanted(_ name: String) -> Bool {
        guard only?.contains(name) ?? true else { return false }
        log("  \(name)")
        return true
      }
      if wanted("durable-save") { results += try await durableSave(drafts) }
      if wanted("large-save") { results += try await largeSave(drafts) }
      if wanted("transaction") { results += try await transaction(drafts) }
      if wanted("cold-load") { results += try await coldLoad(drafts) }
      if wanted("migrated-load") { results += try await migratedLoad(drafts) }
      if wanted("caller-mutation") { results.append(await callerMutation(drafts)) }
      if wanted("coalescing") { results.append(try await coalescing(drafts)) }
      if wanted("in-memory-mutation") { results.append(inMemoryMutation(size)) }
      if wanted("projected-mutation") { results.append(projectedMutation(size)) }
      if wanted("inline-projection") { results.append(inlineProjection(size)) }
      if wanted("in-memory-append") { results.append(inMemoryAppend(size)) }
      if wanted("in-memory-keys") { results.append(contentsOf: inMemoryKeys(size)) }
      if wanted("observed-increment") { results.append(observedIncrement(size)) }
      if wanted("observed-append") { results.append(observedAppend(size)) }
      if wanted("observed-read") { results.append(observedRead(size)) }
      if wanted("tracked-increment") { results.append(trackedIncrement(size)) }
      if wanted("keys") { results += try await keys(size, isFirstSize: size == sizes.first) }
      if let executable, wanted("peak-memory") {
        results.append(try peakMemory(size, executable: executable))
      }
      if size == sizes.first, wanted("processes") { results += processes() }
    }
    return results
  }

  // MARK: - Measuring

  /// Runs the two sides alternately, `repetitions` times each after one warm-up of each (unless
  /// `warmUp` is false), and returns each side's samples in order.
  ///
  /// NB: alternating makes a change in the machine's load or clock speed during the run weigh
  /// on both sides alike; each closure returns what it measured itself, so setup outside the
  /// measured work is not counted.
  func alternate<T>(
    _ repetitions: Int, warmUp: Bool = true, keepsake: () async throws -> T,
    baseline: () async throws -> T
  ) async rethrows -> (keepsake: [T], baseline: [T]) {
    if warmUp {
      _ = try await keepsake()
      _ = try await baseline()
    }
    var ours: [T] = []
    var theirs: [T] = []
    for _ in 0..<repetitions {
      ours.append(try await keepsake())
      theirs.append(try await baseline())
    }
    return (ours, theirs)
  }

  /// ``alternate(_:keepsake:baseline:)`` for synchronous work.
  func alternateSync<T>(
    _ repetitions: Int, keepsake: () throws -> T, baseline: () throws -> T
  ) rethrows -> (keepsake: [T], baseline: [T]) {
    _ = try keepsake()
    _ = try baseline()
    var ours: [T] = []
    var theirs: [T] = []
    for _ in 0..<repetitions {
      ours.append(try keepsake())
      theirs.append(try baseline())
    }
    return (ours, theirs)
  }

  /// The seconds `body` takes.
  func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
  }

  /// A context on the real disk of its own, so every cold load really reads the file.
  static func context(_ fileSystem: any FileSystem = SystemCalls.live.fileSystem) -> StorageContext
  {
    StorageContext(name: "bench", fileSystem: fileSystem, isIsolated: false) { _ in
      PreferencesStores.inMemory()
    }
  }

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// The baselines' files, in a folder no key watches, so their writes wake no watcher.
  var baselineFolder: URL { folder.appendingPathComponent("baseline") }

  func baselineFile(_ name: String) -> URL { baselineFolder.appendingPathComponent(name) }
}

extension Duration {
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
