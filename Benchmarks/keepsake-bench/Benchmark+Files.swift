import DraftsFeature
import Foundation
import Keepsake
import Synchronization

/// Scenarios of file keys: durable saves and transactions (fsync-bound), first reads, and what
/// mutations of a file key cost the caller.
///
/// The fsync-bound ones report three figures: wall-clock time with its spread (reported only:
/// the shared disk's latency swings more than the difference measured), the process's CPU time
/// (held to the target), and the fsyncs each save makes (held to the baseline's count).
extension Benchmark {
  // MARK: - Durable work

  func durableSave(_ drafts: [Draft]) async throws -> [BenchmarkResult] {
    let url = file("save-\(drafts.count).json")
    let disk = CountingFileSystem()
    let shared = StorageContext.withValue(Self.context(disk)) {
      Shared(.drafts(at: url), default: [])
    }
    shared.withLock { $0 = drafts }
    try await shared.flush()
    let baselineURL = baselineFile("save-\(drafts.count).json")
    let (writes, fsyncs) = (disk.writes, Baseline.fsyncCalls)
    let (ours, theirs) = try await alternate(
      fileRepetitions, warmUp: Self.warmsUp(drafts.count),
      keepsake: { try await settled { try await Sample.measureAsync { try await shared.save() } } },
      baseline: {
        try await settled {
          try Sample.measure { try Baseline.durableSave(drafts, to: baselineURL) }
        }
      })
    let saves = Double(fileRepetitions + (Self.warmsUp(drafts.count) ? 1 : 0))
    var rows = fileRows(
      "durable-save", size: drafts.count, ours, theirs, cpuTarget: 1.10,
      sameBytes: try sameJSON(url, baselineURL))
    rows.append(
      try fsyncRow(
        "durable-save", size: drafts.count, file: url, atomicWrites: disk.writes - writes,
        saves: saves, baselineFsyncs: Double(Baseline.fsyncCalls - fsyncs) / saves))
    return rows
  }

  /// One draft among many edited, then `save()`, against writing and syncing the bytes
  /// Keepsake wrote with the same protocol by hand (the floor of a save of this format: the
  /// whole file is written for any change).
  ///
  /// NB: the edit is made before each measured save, outside it; what it costs the caller is
  /// the `caller-mutation` row's.
  func largeSave(_ drafts: [Draft]) async throws -> [BenchmarkResult] {
    let url = file("large-\(drafts.count).json")
    let disk = CountingFileSystem()
    let shared = StorageContext.withValue(Self.context(disk)) {
      Shared(.drafts(at: url), default: [])
    }
    shared.withLock { $0 = drafts }
    try await shared.flush()
    let baselineURL = baselineFile("large-\(drafts.count).json")
    var edits = 0
    let (writes, fsyncs) = (disk.writes, Baseline.fsyncCalls)
    let (ours, theirs) = try await alternate(
      fileRepetitions, warmUp: Self.warmsUp(drafts.count),
      keepsake: {
        edits += 1
        let index = edits * 7_919 % drafts.count
        shared.withLock { $0[index].body += " (edited)" }
        return try await settled {
          try await Sample.measureAsync { try await shared.save() }
        }
      },
      baseline: {
        let bytes = try Data(contentsOf: url)
        return try await settled {
          try Sample.measure { try Baseline.durableWrite(bytes, to: baselineURL) }
        }
      })
    let saves = Double(fileRepetitions + (Self.warmsUp(drafts.count) ? 1 : 0))
    var rows = fileRows(
      "large-save", size: drafts.count, ours, theirs, cpuTarget: 2.0,
      sameBytes: try Data(contentsOf: url) == Data(contentsOf: baselineURL))
    let megabytes = Double(try Data(contentsOf: url).count) / 1_000_000
    rows[0].note = "one draft changed; \(String(format: "%.1f", megabytes)) MB written per change"
    // NB: held at 100,000 drafts, where the bytes outweigh what any save costs besides them;
    // below that a save's fixed costs weigh as much as its bytes, and the row is reported.
    if drafts.count < 100_000 { rows[1].target = .report }
    let edited = shared.wrappedValue.filter { $0.body.hasSuffix(" (edited)") }.count
    if edited == 0 { rows[1].failure = "no draft was edited" }
    rows.append(
      try fsyncRow(
        "large-save", size: drafts.count, file: url, atomicWrites: disk.writes - writes,
        saves: saves, baselineFsyncs: Double(Baseline.fsyncCalls - fsyncs) / saves))
    return rows
  }

  /// `try await $drafts.update { $0.append(draft) }` against `flock`, read, decode, append,
  /// encode, durable write and unlock by hand.
  func transaction(_ drafts: [Draft]) async throws -> [BenchmarkResult] {
    let url = file("transaction-\(drafts.count).json")
    try DraftsFormat.encode(drafts).write(to: url)
    let baselineURL = baselineFile("transaction-\(drafts.count).json")
    try Baseline.encode(drafts).write(to: baselineURL)
    let disk = CountingFileSystem()
    let shared = StorageContext.withValue(Self.context(disk)) {
      Shared(.drafts(at: url), default: [])
    }
    guard shared.wrappedValue.count == drafts.count else {
      throw BenchmarkError("transaction read \(shared.wrappedValue.count) drafts")
    }
    let extra = SampleDrafts.make(1, seed: 11)[0]
    let (writes, fsyncs) = (disk.writes, Baseline.fsyncCalls)
    let (ours, theirs) = try await alternate(
      fileRepetitions, warmUp: Self.warmsUp(drafts.count),
      keepsake: {
        try await settled {
          try await Sample.measureAsync { try await shared.update { $0.append(extra) } }
        }
      },
      baseline: {
        try await settled {
          try Sample.measure { try Baseline.transaction(appending: extra, to: baselineURL) }
        }
      })
    let transactions = Double(fileRepetitions + (Self.warmsUp(drafts.count) ? 1 : 0))
    var rows = fileRows(
      "transaction", size: drafts.count, ours, theirs, cpuTarget: 1.10,
      sameBytes: try sameJSON(url, baselineURL))
    if shared.wrappedValue.count != drafts.count + Int(transactions) {
      rows[0].failure = "the value holds \(shared.wrappedValue.count) drafts"
    }
    rows.append(
      try fsyncRow(
        "transaction", size: drafts.count, file: url, atomicWrites: disk.writes - writes,
        saves: transactions, baselineFsyncs: Double(Baseline.fsyncCalls - fsyncs) / transactions))
    return rows
  }

  // MARK: - First reads

  func coldLoad(_ drafts: [Draft]) async throws -> [BenchmarkResult] {
    let url = file("load-\(drafts.count).json")
    try DraftsFormat.encode(drafts).write(to: url)
    let bare = baselineFile("bare-\(drafts.count).json")
    try JSONEncoder().encode(drafts).write(to: bare)
    return try await firstRead(
      of: url, drafts, scenario: "cold-load", baseline: { try Baseline.load(bare) })
  }

  /// A version 1 file read and migrated by the format, against decoding the same bytes and
  /// building the current drafts by hand.
  func migratedLoad(_ drafts: [Draft]) async throws -> [BenchmarkResult] {
    let url = file("v1-\(drafts.count).json")
    try SampleDrafts.v1File(drafts).write(to: url)
    let copy = baselineFile("v1-\(drafts.count).json")
    try SampleDrafts.v1File(drafts).write(to: copy)
    return try await firstRead(
      of: url, drafts, scenario: "migrated-load", baseline: { try Baseline.migrateV1(copy) })
  }

  /// The first read of a fresh `@Shared` key on `url`, in a context of its own, against
  /// `baseline`.
  private func firstRead(
    of url: URL, _ drafts: [Draft], scenario: String, baseline: () throws -> [Draft]
  ) async throws -> [BenchmarkResult] {
    let (ours, theirs) = try await alternate(
      fileRepetitions, warmUp: Self.warmsUp(drafts.count),
      keepsake: {
        try await settled {
          try Sample.measure {
            let shared = StorageContext.withValue(Self.context()) {
              Shared(.drafts(at: url), default: [])
            }
            guard shared.wrappedValue.count == drafts.count else {
              throw BenchmarkError("\(scenario) read \(shared.wrappedValue.count) drafts")
            }
          }
        }
      },
      baseline: {
        try await settled {
          try Sample.measure {
            guard try baseline().count == drafts.count else {
              throw BenchmarkError("\(scenario)'s baseline read other drafts")
            }
          }
        }
      })
    return fileRows(scenario, size: drafts.count, ours, theirs, cpuTarget: 1.10, sameBytes: true)
  }

  /// Whether file scenarios of `size` drafts warm up first: a repetition of 100,000 drafts
  /// lasts a second, long past any first-run effect, and the default run stays short.
  static func warmsUp(_ size: Int) -> Bool { size < 100_000 }

  // MARK: - Rows

  /// The wall-clock row (reported with its spread) and the CPU row (held to `cpuTarget`).
  private func fileRows(
    _ scenario: String, size: Int, _ ours: [Sample], _ theirs: [Sample], cpuTarget: Double,
    sameBytes: Bool
  ) -> [BenchmarkResult] {
    let wall = BenchmarkResult(
      scenario, size: size, keepsake: ours.map(\.wall), baseline: theirs.map(\.wall),
      target: .report)
    var cpu = BenchmarkResult(
      scenario + " cpu", size: size, keepsake: ours.map(\.cpu), baseline: theirs.map(\.cpu),
      target: .ratioAtMost(cpuTarget))
    if !sameBytes { cpu.failure = "the baseline wrote other JSON than Keepsake" }
    return [wall, cpu]
  }

  /// The fsyncs of one save: Keepsake's traced by `strace` in a child process (or, without
  /// strace, inferred from its atomic writes), the baseline's counted in its code.
  private func fsyncRow(
    _ scenario: String, size: Int, file: URL, atomicWrites: Int, saves: Double,
    baselineFsyncs: Double
  ) throws -> BenchmarkResult {
    let traced = try executable.flatMap { executable in
      try FsyncCount.traced(
        executable: executable, scenario: scenario, copyOf: file,
        in: folder.appendingPathComponent("fsync-\(scenario)-\(size)"),
        operations: size < 100_000 ? 2 : 1)
    }
    let keepsake = traced ?? 2 * Double(atomicWrites) / saves
    var row = BenchmarkResult(
      scenario + " fsyncs", size: size, unit: .count("fsyncs"), keepsake: [keepsake],
      baseline: [baselineFsyncs], target: .equalToBaseline)
    row.note =
      traced == nil
      ? "not traced: 2 per atomic write of LocalFileSystem, \(atomicWrites) writes"
      : "traced with strace; \(Self.number(Double(atomicWrites) / saves)) atomic write per save"
    return row
  }

  private static func number(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
  }

  /// Whether Keepsake's file is the baseline's JSON inside the version envelope, byte for byte.
  private func sameJSON(_ keepsake: URL, _ baseline: URL) throws -> Bool {
    let ours = try Data(contentsOf: keepsake)
    let theirs = try Data(contentsOf: baseline)
    return ours == Data(#"{"content":"#.utf8) + theirs + Data(#","version":3}"#.utf8)
  }

  /// Runs `body`, then gives the watcher and the writer queues a moment to finish what the
  /// work set off, so it is not counted against the next repetition.
  func settled<T>(_ body: () async throws -> T) async throws -> T {
    let result = try await body()
    try await Task.sleep(for: .milliseconds(5))
    return result
  }

  // MARK: - Mutations of a file key

  static let mutations = 100_000

  func callerMutation(_ drafts: [Draft]) async -> BenchmarkResult {
    let extra = SampleDrafts.make(1, seed: 7)[0]
    let disk = CountingFileSystem()
    let (keepsake, baseline) = await alternate(
      repetitions,
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
        try? await shared.flush()  // NB: a failed write shows in the scenario's own checks
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
      "caller-mutation", size: drafts.count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(2.0))
    if disk.ioOnWatchedThread {
      result.failure = "FILE I/O ON CALLER"
    } else {
      result.note = "no file I/O on caller"
    }
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
    try await shared.flush()
    let onDisk = try DraftsFormat.decode(Data(contentsOf: url))
    var result = BenchmarkResult(
      "coalescing", size: drafts.count, unit: .count("writes"), value: Double(disk.writes),
      target: .valueAtMost(5))
    if onDisk.count != drafts.count + Self.mutations {
      result.failure = "FINAL VALUE MISSING: \(onDisk.count) drafts on disk"
    } else {
      result.note = "final value on disk"
    }
    return result
  }

  // MARK: - Memory

  func peakMemory(_ count: Int, executable: URL) throws -> BenchmarkResult {
    func child(_ side: String) throws -> Double {
      let output = try ChildProcess.run(
        executable,
        ["--memory-child", side, String(count), file("memory-\(side)-\(count).json").path])
      guard let bytes = Double(output) else {
        throw BenchmarkError("memory child \(side) failed: \(output)")
      }
      return bytes
    }
    return BenchmarkResult(
      "peak-memory", size: count, unit: .bytes, keepsake: [try child("keepsake")],
      baseline: [try child("baseline")], target: .ratioAtMost(1.5))
  }
}
