import DraftsFeature
import Foundation
import Keepsake
import Synchronization

// NB: one scenario family, ten thousand keys, in one file of about 350 lines: creation and
// churn (measured in a child process), live keys seeing outside writes, and keys beside a large
// load share the helpers that write the small files.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thousands of file keys, as apps with one file per document make them: keys that
/// come and go, live keys that all see outside writes, and small keys made while another
/// thread loads a large file.
extension Benchmark {
  /// Files per folder in the churn: documents of an app spread over folders, as a few
  /// hundred per folder at most.
  static let filesPerFolder = 100
  /// Keys alive at once in the churn, as a list screen of documents holds them.
  static let liveBatch = 100
  /// The most live keys the watch figure uses (each in its own folder, so one inotify watch
  /// each): the per-user limit here is 192,536 watches, shared by every process of the user.
  static let maximumWatchedKeys = 10_000

  func keys(_ count: Int, isFirstSize: Bool) async throws -> [BenchmarkResult] {
    var results = try keyChurn(count)
    results += try await liveKeysSeeOutsideWrites(min(count, Self.maximumWatchedKeys))
    if isFirstSize { results.append(try await keysBesideLargeLoad()) }
    return results
  }

  // MARK: - Create, read and drop

  /// Creates, reads and drops `count` distinct file keys, `liveBatch` alive at a time: the cost
  /// of each against opening, reading and decoding the file by hand, and the memory and
  /// descriptors left afterwards against before.
  ///
  /// NB: measured in a child process of its own when there is an executable, so resident
  /// memory starts from a small process rather than one that held 100,000 drafts moments ago.
  func keyChurn(_ count: Int) throws -> [BenchmarkResult] {
    let root = file("keys-\(count)")
    defer { try? FileManager.default.removeItem(at: root) }
    let figures: ChurnFigures
    if let executable {
      let output = try ChildProcess.run(executable, ["--keys-child", String(count), root.path])
      figures = try JSONDecoder().decode(ChurnFigures.self, from: Data(output.utf8))
    } else {
      figures = try Self.measureChurn(count, in: root)
    }
    var create = BenchmarkResult(
      "keys-create", size: count, keepsake: figures.keepsake, baseline: figures.baseline,
      target: .ratioAtMost(2.0), note: "per key: create, read; \(Self.liveBatch) alive at once")
    create.perItem = true
    create.failure = figures.leftovers
    var results = [create]
    if let before = figures.memoryBefore, let after = figures.memoryAfter {
      results.append(
        BenchmarkResult(
          "keys-memory", size: count, unit: .bytes, keepsake: [Double(after)],
          baseline: [Double(before)], target: .ratioAtMost(1.10),
          note: "resident after the keys were dropped, against before"))
    }
    if let before = figures.descriptorsBefore, let after = figures.descriptorsAfter {
      results.append(
        BenchmarkResult(
          "keys-descriptors", size: count, unit: .count("fds"), keepsake: [Double(after)],
          baseline: [Double(before)], target: .ratioAtMost(1.10),
          note: "open after the keys were dropped, against before"))
    }
    return results
  }

  /// What the churn measured, as the child process reports it.
  struct ChurnFigures: Codable {
    /// Seconds per key, one figure per batch.
    var keepsake: [Double]
    var baseline: [Double]
    var memoryBefore: Int?
    var memoryAfter: Int?
    var descriptorsBefore: Int?
    var descriptorsAfter: Int?
    /// What was left after the keys were dropped, if anything.
    var leftovers: String?
  }

  /// `--keys-child COUNT FOLDER`: the churn of `count` keys in `folder`, printed as JSON.
  static func runChurnChild(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2, let count = Int(arguments[0]) else { return 2 }
    do {
      let figures = try measureChurn(count, in: URL(fileURLWithPath: arguments[1]))
      print(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
      return 0
    } catch {
      print("error: \(error)")
      return 1
    }
  }

  static func measureChurn(_ count: Int, in root: URL) throws -> ChurnFigures {
    let urls = try writeSmallFiles(count, in: root, prefix: "k")
    let warmUp = try writeSmallFiles(
      liveBatch * 2, in: root.appendingPathComponent("warm-up"), prefix: "w")
    // NB: a read updates a file's access time (`relatime`: a write of its inode) while that time
    // is not after the file's last change, which a file written a moment ago is, until a read in a
    // later tick of the kernel's clock. Which side that was depended on the order and the clock
    // (Keepsake's read first, always: 76 of its 1,660 samples under `perf`, the floor's 3; with
    // the files read once beforehand, the floor's 37 and Keepsake's 3). Both read the same bytes:
    // the times are set so neither read writes.
    for url in urls + warmUp { try Self.settleAccessTime(of: url) }
    let context = Benchmark.context()
    // NB: the first keys of a process start the folder watcher, Dispatch's threads and
    // caches of the runtime: they are made before the figures start.
    for batch in stride(from: 0, to: warmUp.count, by: liveBatch) {
      _ = try createAndRead(warmUp[batch..<(batch + liveBatch)], in: context)
    }
    var figures = ChurnFigures(
      keepsake: [], baseline: [], memoryBefore: ProcessStats.residentBytes(),
      descriptorsBefore: ProcessStats.openDescriptors())
    let (watchesBefore, slotsBefore) = (
      FolderWatcher.watchedFolderCount, context.referenceSlotCount
    )
    for start in stride(from: 0, to: urls.count, by: liveBatch) {
      let batch = urls[start..<min(start + liveBatch, urls.count)]
      figures.keepsake.append(try createAndRead(batch, in: context) / Double(batch.count))
      let start = ContinuousClock.now
      for url in batch where try Baseline.readSmall(Draft.self, from: url) != smallValue {
        throw BenchmarkError("the baseline read another value from \(url.path)")
      }
      figures.baseline.append((ContinuousClock.now - start).seconds / Double(batch.count))
    }
    figures.memoryAfter = ProcessStats.residentBytes()
    figures.descriptorsAfter = ProcessStats.openDescriptors()
    let live = context.liveReferenceCount
    let watches = FolderWatcher.watchedFolderCount - watchesBefore
    let slots = context.referenceSlotCount - slotsBefore
    if live != 0 || watches > 0 || slots > 0 {
      figures.leftovers =
        "after dropping: \(live) live references, \(slots) slots, \(watches) more watches"
    }
    return figures
  }

  /// Creates a key of each file and reads it, then drops them all; returns the seconds the
  /// creation and reads took.
  ///
  /// NB: the default is the app's value, made before the clock starts, as a `static let` default
  /// is: `Draft(body:)` makes a random `UUID`, which on Linux opens, reads and closes
  /// `/dev/urandom` (a large part of the floor), a cost of the app's own code that the floor,
  /// which never needs a default, would not share. Keepsake copies the default for every key.
  private static func createAndRead(
    _ urls: ArraySlice<URL>, in context: StorageContext
  ) throws -> Double {
    var keys: [Shared<Draft>] = []
    keys.reserveCapacity(urls.count)
    let empty = Draft(body: "")
    let start = ContinuousClock.now
    for url in urls {
      let shared = StorageContext.withValue(context) {
        Shared(.fileStorage(url), default: empty)
      }
      keys.append(shared)
      guard shared.wrappedValue == smallValue else {
        throw BenchmarkError("a key read \(shared.wrappedValue) from \(url.path)")
      }
    }
    let seconds = (ContinuousClock.now - start).seconds
    keys.removeAll()
    return seconds
  }

  // MARK: - Live keys see outside writes

  /// `count` live keys, each in a folder of its own, and another writer replacing every file:
  /// how many keys saw their file's change, and how long until the last one did.
  func liveKeysSeeOutsideWrites(_ count: Int) async throws -> [BenchmarkResult] {
    let root = file("watched-\(count)")
    let urls = try Self.writeSmallFiles(count, in: root, prefix: "w", perFolder: 1)
    let context = Self.context()
    let watchesBefore = FolderWatcher.watchedFolderCount
    var keys: [Shared<Draft>] = urls.map { url in
      StorageContext.withValue(context) { Shared(.fileStorage(url), default: Draft(body: "")) }
    }
    guard keys.allSatisfy({ $0.wrappedValue == Self.smallValue }) else {
      throw BenchmarkError("a watched key read another value")
    }
    // What another process does: a new file renamed over each one (no fsync: only the
    // change matters here).
    var changed = Self.smallValue
    changed.body = "changed from outside"
    let data = try JSONEncoder().encode(changed)
    let start = ContinuousClock.now
    for url in urls {
      let temporary = url.deletingLastPathComponent().appendingPathComponent(".outside.tmp")
      try Baseline.writeQuickly(data, to: temporary)
      guard rename(temporary.path, url.path) == 0 else {
        throw BenchmarkError("rename failed: \(errno)")
      }
    }
    let written = ContinuousClock.now - start
    var waiting = Set(keys.indices)
    var last = start
    let deadline = start + .seconds(10)
    while !waiting.isEmpty, ContinuousClock.now < deadline {
      for index in waiting where keys[index].wrappedValue == changed {
        waiting.remove(index)
        last = .now
      }
      if !waiting.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
    }
    let seen = count - waiting.count
    let blind = FolderWatcher.failures.count
    var saw = BenchmarkResult(
      "keys-watch", size: count, unit: .count("saw it"), value: Double(seen),
      target: .valueAtLeast(Double(count)))
    saw.note = "\(count) live keys in \(count) folders; \(blind) watch failures"
    // NB: from the end of the writes: the keys take their changes in while the writer is still
    // at it, so "first write to last key" would mostly time the writer.
    let caughtUp = max(.zero, last - (start + written))
    var latency = BenchmarkResult(
      "keys-watch-latency", size: count, unit: .seconds, value: caughtUp.seconds,
      target: .report)
    latency.note = String(
      format: "last outside write to the last key seeing its change; the %d writes took %.0f ms",
      count, written.seconds * 1e3)
    keys.removeAll()
    let watchesLeft = FolderWatcher.watchedFolderCount - watchesBefore
    if watchesLeft > 0 { saw.failure = "\(watchesLeft) watches left after the keys were dropped" }
    try? FileManager.default.removeItem(at: root)
    return [saw, latency]
  }

  // MARK: - A large first load elsewhere

  /// Small keys created while another thread makes the first read of a 20 MB file in the same
  /// context, against the same creation with no large load running.
  func keysBesideLargeLoad() async throws -> BenchmarkResult {
    let large = file("large.json")
    let drafts = SampleDrafts.make(largeLoadDrafts, seed: 5)
    let data = try DraftsFormat.encode(drafts)
    try data.write(to: large)
    let pool = besideLoadKeys
    var baseline: [Double] = []
    var keepsake: [Double] = []
    var loads: [Duration] = []
    var failure: String?
    // NB: several alternating rounds, each with fresh files and a fresh context: one round is
    // a few milliseconds of each side, which a hiccup of either on 2 cores swung from 0.6x to
    // 1.5x between runs of one build.
    for round in 0..<besideLoadRounds {
      let quiet = try Self.writeSmallFiles(pool, in: file("beside-quiet-\(round)"), prefix: "q")
      let busy = try Self.writeSmallFiles(pool, in: file("beside-busy-\(round)"), prefix: "b")
      let context = Self.context()
      baseline += try Self.creationTimes(quiet, in: context)

      let loader = LargeLoad(url: large, context: context, expected: drafts.count)
      loader.start()
      while !loader.hasStarted { try await Task.sleep(for: .milliseconds(1)) }
      try await Task.sleep(for: .milliseconds(20))
      keepsake += try Self.creationTimes(busy, in: context)
      let madeBy = ContinuousClock.now
      let load = try await loader.finish()
      loads.append(load.seconds)
      if load.end < madeBy {
        failure = "the large load ended before the small keys were made"
      }
    }

    var result = BenchmarkResult(
      "keys-beside-large-load", size: pool, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.5))
    result.ratios = nil
    result.perItem = true
    let slowest = loads.max() ?? .zero
    result.note = String(
      format: "per key, %d rounds, while a %.1f MB first load took up to %.0f ms elsewhere",
      besideLoadRounds, Double(data.count) / 1e6, slowest.seconds * 1e3)
    result.failure = failure
    return result
  }

  /// The seconds each key of `urls` took to create and read.
  private static func creationTimes(_ urls: [URL], in context: StorageContext) throws -> [Double] {
    var keys: [Shared<Draft>] = []
    var times: [Double] = []
    for url in urls {
      let start = ContinuousClock.now
      let shared = StorageContext.withValue(context) {
        Shared(.fileStorage(url), default: Draft(body: ""))
      }
      guard shared.wrappedValue == smallValue else {
        throw BenchmarkError("a key read another value from \(url.path)")
      }
      times.append((ContinuousClock.now - start).seconds)
      keys.append(shared)
    }
    return times
  }

  // MARK: - Files

  /// The value of every small file: one draft, about 200 bytes of JSON.
  static let smallValue = Draft(
    id: UUID(uuidString: "00000000-0000-0000-0000-000000000042")!,
    body: "A small document, one of thousands: a note, a conversation, an account.",
    pinned: false, tags: ["work"])

  /// Sets `url`'s access time an hour ahead and its modification time an hour back, so reading
  /// it does not update its access time (see `measureChurn`).
  private static func settleAccessTime(of url: URL) throws {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var times = [now, now]
    times[0].tv_sec += 3600
    times[1].tv_sec -= 3600
    guard utimensat(AT_FDCWD, url.path, times, 0) == 0 else {
      throw BenchmarkError("utimensat failed on \(url.path): \(errno)")
    }
  }

  /// Writes `count` small files under `root`, `perFolder` to a folder, and returns their URLs.
  static func writeSmallFiles(
    _ count: Int, in root: URL, prefix: String, perFolder: Int = filesPerFolder
  ) throws -> [URL] {
    let data = try JSONEncoder().encode(smallValue)
    var urls: [URL] = []
    urls.reserveCapacity(count)
    var folder = root
    for index in 0..<count {
      if index % perFolder == 0 {
        folder = root.appendingPathComponent("\(prefix)\(index / perFolder)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      let url = folder.appendingPathComponent("\(prefix)\(index).json")
      try Baseline.writeQuickly(data, to: url)
      urls.append(url)
    }
    return urls
  }
}

/// A first read of a large file on a thread of its own.
private final class LargeLoad: Sendable {
  let url: URL
  let context: StorageContext
  let expected: Int
  private let state = Mutex<(started: Bool, result: Result<Timing, any Error>?)>((false, nil))

  struct Timing {
    var seconds: Duration
    var end: ContinuousClock.Instant
  }

  init(url: URL, context: StorageContext, expected: Int) {
    self.url = url
    self.context = context
    self.expected = expected
  }

  var hasStarted: Bool { state.withLock { $0.started } }

  func start() {
    let thread = Thread { [self] in
      state.withLock { $0.started = true }
      let start = ContinuousClock.now
      let shared = StorageContext.withValue(context) { Shared(.drafts(at: url), default: []) }
      let count = shared.wrappedValue.count
      let end = ContinuousClock.now
      let result: Result<Timing, any Error> =
        count == expected
        ? .success(Timing(seconds: end - start, end: end))
        : .failure(BenchmarkError("the large load read \(count) drafts"))
      state.withLock { $0.result = result }
    }
    thread.start()
  }

  func finish() async throws -> Timing {
    while true {
      if let result = state.withLock({ $0.result }) { return try result.get() }
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}
