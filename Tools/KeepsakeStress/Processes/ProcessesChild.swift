import Foundation
import Keepsake
import Observation
import Synchronization

/// The children of the processes campaign: many processes adding items to one file at once.
///
/// Each prints `ready` once its key is loaded, waits for the start file (so that all of them really
/// overlap), and adds its items. It prints `added <id>` for each item once it is durably saved (the
/// transaction or the `save()` returned, data-safety rule "An acknowledged save is on disk"
/// (DataSafety.md)), and at the end `done <added> <merges> <kept-both>`: how many items it added
/// and how many conflicts its `lastConflict` reported, merged or kept as a conflict copy.
public enum ProcessesChild {
  /// How a child writes.
  public enum Mode: String, Sendable, CaseIterable {
    /// One `update` transaction per item (the serializable read-modify-write of data-safety rule
    /// "Processes that share a file lose nothing").
    case update
    /// One `withTransaction { withLock }` per item: the same lock, refresh and durable write as
    /// `update`, through the scope that holds the lock around async work.
    case withTransaction = "with-transaction"
    /// `withLock` per item, saved in the background every few milliseconds: racing saves merge.
    case merging
    /// The deliberately broken writer of the campaign's own tests: `withLock` and `save()` of a
    /// value that cannot merge, so racing saves keep conflict copies and the file loses items.
    case unmerged
    /// Not Keepsake: the same transactions as `update` written by hand with `flock`,
    /// `JSONDecoder`, `JSONEncoder` and the durable rename (``ByHandTransactions``), the floor
    /// of Keepsake's write protocol.
    case byHand = "by-hand"
    /// Not Keepsake either: the protocol alone, the `byHand` transactions with the item's bytes
    /// spliced into the file's instead of decoding and encoding the array.
    case protocolOnly = "protocol-only"
  }

  /// What a child does.
  public struct Options: Sendable, Equatable {
    /// The shared file.
    public var url: URL
    /// The child's number, part of every item's identifier.
    public var process = 0
    /// Items to add.
    public var count = 10
    /// The file whose appearance starts the work.
    public var startFile: URL
    /// How the child writes.
    public var mode = Mode.update
    /// Makes the merging child's pauses repeatable.
    public var seed: UInt64 = 1

    /// A child adding items to `url` once `startFile` exists.
    public init(url: URL, startFile: URL) {
      self.url = url
      self.startFile = startFile
    }

    /// The settings ``ProcessesChild/arguments(url:mode:process:count:startFile:seed:)``
    /// wrote, or `nil` when `words` are not exactly those.
    public init?(arguments words: [String]) {
      guard words.count == 11, words[1] == "--mode", let mode = Mode(rawValue: words[2]),
        words[3] == "--process", let process = Int(words[4]), words[5] == "--count",
        let count = Int(words[6]), count >= 0, words[7] == "--start-file",
        words[9] == "--seed", let seed = UInt64(words[10])
      else { return nil }
      self.init(
        url: URL(fileURLWithPath: words[0]), startFile: URL(fileURLWithPath: words[8]))
      self.mode = mode
      self.process = process
      self.count = count
      self.seed = seed
    }
  }

  /// The words after the command that make a child with these settings, as
  /// ``Options/init(arguments:)`` reads them: `<file> --mode M --process P --count N
  /// --start-file F --seed S`.
  public static func arguments(
    url: URL, mode: Mode, process: Int, count: Int, startFile: URL, seed: UInt64
  ) -> [String] {
    [
      url.path, "--mode", mode.rawValue, "--process", "\(process)", "--count", "\(count)",
      "--start-file", startFile.path, "--seed", "\(seed)",
    ]
  }

  /// Starts `processes` children of `executable` (each `prefix` followed by
  /// ``arguments(url:mode:process:count:startFile:seed:)``) adding `count` items each to `url`,
  /// released together by a start file beside it.
  static func runGroup(
    _ name: String, executable: String, prefix: [String], mode: Mode, url: URL, processes: Int,
    count: Int, seed: UInt64, timeout: Double
  ) -> ChildGroup {
    let startFile = url.deletingLastPathComponent().appendingPathComponent("start")
    return ChildGroup.run(
      name, executable: executable,
      arguments: (0..<processes).map { process in
        prefix
          + arguments(
            url: url, mode: mode, process: process, count: count, startFile: startFile,
            seed: seed)
      },
      startFile: startFile, timeout: timeout)
  }

  /// How long a child waits for the start file before giving up: a parent that died must not
  /// leave children polling forever.
  static let startTimeout = 120.0

  /// The save interval of the merging child: short, so that saves of several processes race.
  static let mergingSaveInterval = Duration.milliseconds(20)

  /// Runs a child; returns the exit code: 0 when every item was added and saved, 3 when the file
  /// could not be read, 4 when a save or transaction failed, 5 when the start never came.
  ///
  /// The transactions' children (`update`, `withTransaction` and the by-hand ones) also print
  /// where their time went (``LockTiming/line``) before `done`.
  public static func run(_ options: Options) async -> Int32 {
    let timed = TimedSystemCalls()
    let context = StorageContext.disk(name: "processes \(options.process)", calls: timed.calls)
    return await StorageContext.withValue(context) {
      switch options.mode {
      case .update: return await update(options, timed)
      case .withTransaction: return await withTransaction(options, timed)
      case .merging: return await merging(options)
      case .unmerged: return await unmerged(options)
      case .byHand: return ByHandTransactions.run(options, coding: true, timed: timed)
      case .protocolOnly: return ByHandTransactions.run(options, coding: false, timed: timed)
      }
    }
  }

  private static func update(_ options: Options, _ timed: TimedSystemCalls) async -> Int32 {
    @Shared(.fileStorage(options.url)) var items: [ProcessItem] = []
    if let code = start($items.loadError, options.startFile) { return code }
    let processorStart = LockTiming.processorTime()
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      do {
        try await $items.update { $0.append(item) }
      } catch {
        StandardOutput.write("error \(error)")
        return 4
      }
      StandardOutput.write("added \(item.id)")
    }
    StandardOutput.write(timed.timing(processorSince: processorStart).line)
    StandardOutput.write("done \(options.count) 0 0")
    return 0
  }

  private static func withTransaction(_ options: Options, _ timed: TimedSystemCalls) async
    -> Int32
  {
    @Shared(.fileStorage(options.url)) var items: [ProcessItem] = []
    if let code = start($items.loadError, options.startFile) { return code }
    let processorStart = LockTiming.processorTime()
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      do {
        try await $items.withTransaction { $items.withLock { $0.append(item) } }
      } catch {
        StandardOutput.write("error \(error)")
        return 4
      }
      StandardOutput.write("added \(item.id)")
    }
    StandardOutput.write(timed.timing(processorSince: processorStart).line)
    StandardOutput.write("done \(options.count) 0 0")
    return 0
  }

  private static func merging(_ options: Options) async -> Int32 {
    @Shared(.fileStorage(options.url, saveInterval: mergingSaveInterval))
    var items: [ProcessItem] = []
    if let code = start($items.loadError, options.startFile) { return code }
    let conflicts = ConflictCounter($items)
    var generator = SeededGenerator(seed: options.seed, item: options.process)
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      $items.withLock { $0.append(item) }
      conflicts.take()
      // A pause of 0-4 ms between items, so that background saves of the processes interleave
      // in ever different ways instead of in lockstep.
      let pause = Int.random(in: 0...4_000, using: &generator)
      try? await Task.sleep(for: .microseconds(pause))
      conflicts.take()
    }
    do {
      try await $items.save()
    } catch {
      StandardOutput.write("error \(error)")
      return 4
    }
    conflicts.take()
    for index in 0..<options.count {
      StandardOutput.write("added \(ProcessItem(process: options.process, index: index).id)")
    }
    StandardOutput.write("done \(options.count) \(conflicts.merges) \(conflicts.keptBoth)")
    return 0
  }

  private static func unmerged(_ options: Options) async -> Int32 {
    @Shared(.fileStorage(options.url)) var list = UnmergeableItems()
    if let code = start($list.loadError, options.startFile) { return code }
    let conflicts = ConflictCounter($list)
    for index in 0..<options.count {
      let item = ProcessItem(process: options.process, index: index)
      $list.withLock { $0.items.append(item) }
      do {
        try await $list.save()
      } catch {
        StandardOutput.write("error \(error)")
        return 4
      }
      StandardOutput.write("added \(item.id)")
      conflicts.take()
    }
    StandardOutput.write("done \(options.count) \(conflicts.merges) \(conflicts.keptBoth)")
    return 0
  }

  /// Prints `ready` and waits for the start file, polling every millisecond; returns the exit
  /// code when the child cannot go on (3: the file is unreadable, 5: no start came).
  static func start(_ loadError: SharedLoadError?, _ startFile: URL) -> Int32? {
    if let loadError {
      StandardOutput.write("unreadable \(loadError)")
      return 3
    }
    StandardOutput.write("ready")
    let deadline = ContinuousClock.now + .seconds(startTimeout)
    while !FileManager.default.fileExists(atPath: startFile.path) {
      guard ContinuousClock.now < deadline else {
        StandardOutput.write("no start within \(Int(startTimeout)) s")
        return 5
      }
      Thread.sleep(forTimeInterval: 0.001)
    }
    return nil
  }
}

/// Counts the conflicts a `Shared` reports through its observable `lastConflict`.
///
/// NB: a lower bound. Two conflicts between two calls of ``take()`` count once (an observation
/// fires once until it is tracked again); the figure is informational, the items in the file are
/// the verdict.
private final class ConflictCounter<Value: Sendable> {
  private let shared: Shared<Value>
  private let changed = ChangeFlag()
  private(set) var merges = 0
  private(set) var keptBoth = 0

  init(_ shared: Shared<Value>) {
    self.shared = shared
    track()
  }

  /// Counts the conflict reported since the last call, if any.
  func take() {
    guard changed.value.exchange(false, ordering: .acquiring) else { return }
    // NB: onChange runs before the new value is stored; it has been by the time this runs.
    track()
    switch shared.lastConflict?.resolution {
    case .merged: merges += 1
    case .keptBoth, .deletedElsewhere, .notMerged: keptBoth += 1
    case nil: break
    }
  }

  private func track() {
    withObservationTracking {
      _ = shared.lastConflict
    } onChange: { [changed] in
      changed.value.store(true, ordering: .releasing)
    }
  }
}

/// A flag set by an observation's `onChange`, which may run on any thread.
private final class ChangeFlag: Sendable {
  let value = Atomic(false)
}
