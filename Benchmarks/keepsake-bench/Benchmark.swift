import DraftsFeature
import Foundation
import Keepsake
import Synchronization

/// Runs every scenario at every size, Keepsake against its baseline in the same process and run,
/// and reports medians of several repetitions after a warm-up.
struct Benchmark {
  var sizes: [Int] = [1_000, 10_000, 100_000]
  var repetitions = 5
  /// Where temporary files go; removed at the end.
  let folder: URL
  /// The benchmark executable, for the peak-memory child processes (`nil`: skip that scenario).
  var executable: URL?
  var log: (String) -> Void = { _ in }
  /// Runs only the scenarios named here, when set (for profiling one scenario).
  var only: Set<String>?

  init(folder: URL) {
    self.folder = folder
  }

  func run() async throws -> [BenchmarkResult] {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var results: [BenchmarkResult] = []
    for size in sizes {
      let drafts = SampleDrafts.make(size)
      log("size \(size)")
      func wanted(_ name: String) -> Bool { only?.contains(name) ?? true }
      if wanted("durable-save") { results.append(try await durableSave(drafts)) }
      if wanted("cold-load") { results.append(try await coldLoad(drafts)) }
      if wanted("migrated-load") { results.append(try await migratedLoad(drafts)) }
      if wanted("caller-mutation") { results.append(await callerMutation(drafts)) }
      if wanted("coalescing") { results.append(try await coalescing(drafts)) }
      if wanted("in-memory-mutation") { results.append(inMemoryMutation(size)) }
      if wanted("in-memory-append") { results.append(inMemoryAppend(size)) }
      if let executable, wanted("peak-memory") {
        results.append(try peakMemory(size, executable: executable))
      }
    }
    return results
  }

  // MARK: - Measuring

  /// Medians of `repetitions` figures of each side, after one warm-up run of each.
  ///
  /// NB: the two sides alternate, repetition by repetition, so a change in the machine's load
  /// or clock speed during the run weighs on both alike; each closure returns the seconds it
  /// measured itself, so setup outside the measured work is not counted.
  func compare(
    keepsake: () async throws -> Double, baseline: () async throws -> Double
  ) async rethrows -> (keepsake: Double, baseline: Double) {
    _ = try await keepsake()
    _ = try await baseline()
    var ours: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<repetitions {
      ours.append(try await keepsake())
      theirs.append(try await baseline())
    }
    return (ours.sorted()[ours.count / 2], theirs.sorted()[theirs.count / 2])
  }

  /// ``compare(keepsake:baseline:)`` for synchronous work.
  func compareSync(
    keepsake: () -> Double, baseline: () -> Double
  ) -> (keepsake: Double, baseline: Double) {
    _ = keepsake()
    _ = baseline()
    var ours: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<repetitions {
      ours.append(keepsake())
      theirs.append(baseline())
    }
    return (ours.sorted()[ours.count / 2], theirs.sorted()[theirs.count / 2])
  }

  /// The seconds `body` takes.
  func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
  }

  /// The seconds `body` takes.
  func timedAsync(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
  }

  /// A context on the real disk of its own, so every cold load really reads the file.
  static func context(_ fileSystem: any FileSystem = LocalFileSystem()) -> StorageContext {
    StorageContext(name: "bench", fileSystem: fileSystem, isEphemeral: false) { _ in
      EphemeralPreferences()
    }
  }

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

  // MARK: - Scenarios

  func durableSave(_ drafts: [Draft]) async throws -> BenchmarkResult {
    let url = file("save-\(drafts.count).json")
    let shared = StorageContext.withValue(Self.context()) {
      Shared(.drafts(at: url), default: [])
    }
    shared.withLock { $0 = drafts }
    await shared.flush()
    let baselineURL = file("save-baseline-\(drafts.count).json")
    let (keepsake, baseline) = try await compare(
      keepsake: { try await timedAsync { try await shared.save() } },
      baseline: { try timed { try Baseline.durableSave(drafts, to: baselineURL) } })
    return BenchmarkResult(
      scenario: "durable-save", size: drafts.count, keepsake: keepsake, baseline: baseline,
      target: 1.10)
  }

  func coldLoad(_ drafts: [Draft]) async throws -> BenchmarkResult {
    let url = file("load-\(drafts.count).json")
    try DraftsFormat.encode(drafts).write(to: url)
    return try await firstRead(of: url, drafts, scenario: "cold-load", target: 1.15)
  }

  func migratedLoad(_ drafts: [Draft]) async throws -> BenchmarkResult {
    let url = file("v1-\(drafts.count).json")
    try SampleDrafts.v1File(drafts).write(to: url)
    return try await firstRead(of: url, drafts, scenario: "migrated-load", target: 2.0)
  }

  /// The first read of a fresh `@Shared` key on `url` against decoding the same drafts, stored
  /// as a bare v3 array, with `Data(contentsOf:)` and `JSONDecoder`.
  private func firstRead(
    of url: URL, _ drafts: [Draft], scenario: String, target: Double
  ) async throws -> BenchmarkResult {
    let bare = file("bare-\(drafts.count).json")
    try JSONEncoder().encode(drafts).write(to: bare)
    let (keepsake, baseline) = try await compare(
      keepsake: {
        try timed {
          let shared = StorageContext.withValue(Self.context()) {
            Shared(.drafts(at: url), default: [])
          }
          guard shared.wrappedValue.count == drafts.count else {
            throw BenchmarkError("\(scenario) read \(shared.wrappedValue.count) drafts")
          }
        }
      },
      baseline: { try timed { _ = try Baseline.load(bare) } })
    return BenchmarkResult(
      scenario: scenario, size: drafts.count, keepsake: keepsake, baseline: baseline,
      target: target)
  }

  static let mutations = 100_000

  func callerMutation(_ drafts: [Draft]) async -> BenchmarkResult {
    let extra = SampleDrafts.make(1, seed: 7)[0]
    let disk = CountingFileSystem()
    let (keepsake, baseline) = await compare(
      keepsake: {
        let url = file("mutate-\(drafts.count)-\(UUID().uuidString).json")
        let shared = StorageContext.withValue(Self.context(disk)) {
          Shared(.drafts(at: url), default: drafts)
        }
        disk.watchCurrentThread()
        let seconds = timed {
          for _ in 0..<Self.mutations { shared.withLock { $0.append(extra) } }
        }
        disk.stopWatching()
        await shared.flush()
        try? FileManager.default.removeItem(at: url)
        return seconds
      },
      baseline: {
        let list = Mutex(drafts)
        return timed {
          for _ in 0..<Self.mutations { list.withLock { $0.append(extra) } }
        }
      })
    var result = BenchmarkResult(
      scenario: "caller-mutation", size: drafts.count, keepsake: keepsake, baseline: baseline,
      target: 2.0)
    result.note = disk.ioOnWatchedThread ? "FILE I/O ON CALLER" : "no file I/O on caller"
    return result
  }

  func coalescing(_ drafts: [Draft]) async throws -> BenchmarkResult {
    let url = file("coalesce-\(drafts.count).json")
    let disk = CountingFileSystem()
    let shared = StorageContext.withValue(Self.context(disk)) {
      Shared(.drafts(at: url), default: drafts)
    }
    let extra = SampleDrafts.make(1, seed: 9)[0]
    // 100,000 mutations spread over one second, in 100 slices.
    let start = ContinuousClock.now
    for slice in 0..<100 {
      for _ in 0..<(Self.mutations / 100) { shared.withLock { $0.append(extra) } }
      try await Task.sleep(until: start + .milliseconds(10 * (slice + 1)), clock: .continuous)
    }
    await shared.flush()
    let onDisk = try DraftsFormat.decode(Data(contentsOf: url))
    return BenchmarkResult(
      scenario: "coalescing", size: drafts.count, keepsake: 0, baseline: 0, target: 5,
      writes: disk.writes, finalValueOnDisk: onDisk.count == drafts.count + Self.mutations)
  }

  func inMemoryMutation(_ count: Int) -> BenchmarkResult {
    let key = "counter-\(count)-\(UUID().uuidString)"
    let shared = StorageContext.withValue(Self.context()) { Shared(.inMemory(key), default: 0) }
    let mutex = Mutex(0)
    let (keepsake, baseline) = compareSync(
      keepsake: { timed { for _ in 0..<count { shared.withLock { $0 += 1 } } } },
      baseline: { timed { for _ in 0..<count { mutex.withLock { $0 += 1 } } } })
    return BenchmarkResult(
      scenario: "in-memory-mutation", size: count, keepsake: keepsake, baseline: baseline,
      target: 3.0)
  }

  func inMemoryAppend(_ count: Int) -> BenchmarkResult {
    let draft = SampleDrafts.make(1, seed: 3)[0]
    let (keepsake, baseline) = compareSync(
      keepsake: {
        let key = "drafts-\(count)-\(UUID().uuidString)"
        let shared = StorageContext.withValue(Self.context()) {
          Shared(.inMemory(key), default: [Draft]())
        }
        return timed { for _ in 0..<count { shared.withLock { $0.append(draft) } } }
      },
      baseline: {
        let list = Mutex([Draft]())
        return timed { for _ in 0..<count { list.withLock { $0.append(draft) } } }
      })
    return BenchmarkResult(
      scenario: "in-memory-append", size: count, keepsake: keepsake, baseline: baseline,
      target: 3.0)
  }

  // MARK: - Memory

  func peakMemory(_ count: Int, executable: URL) throws -> BenchmarkResult {
    func child(_ side: String) throws -> Double {
      let process = Process()
      process.executableURL = executable
      process.arguments = [
        "--memory-child", side, String(count), file("memory-\(side)-\(count).json").path,
      ]
      let pipe = Pipe()
      process.standardOutput = pipe
      try process.run()
      let output = pipe.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      let text = String(decoding: output, as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      guard process.terminationStatus == 0, let bytes = Double(text) else {
        throw BenchmarkError("memory child \(side) failed: \(text)")
      }
      return bytes
    }
    return BenchmarkResult(
      scenario: "peak-memory", size: count, keepsake: try child("keepsake"),
      baseline: try child("baseline"), target: 1.5)
  }
}

extension Duration {
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
