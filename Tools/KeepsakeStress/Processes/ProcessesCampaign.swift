import Foundation
import Keepsake

/// Many processes add items to one file at once, and not one item may be lost or doubled
/// (data-safety rule "Processes that share a file lose nothing", DataSafety.md).
///
/// Four parts, on the real disk:
/// 1. *Transactions*: N processes (`keepsake-stress processes-child --mode transactions`) each
///    run M `try await $items.update { $0.append(item) }`, released together by a start file.
///    A fresh key must then read exactly the N×M items; the figure is transactions per second of
///    the parallel phase.
/// 2. *Merging*: a few long-lived processes add items with plain `withLock` and a 20 ms save
///    interval, so their background saves race and merge three ways, then `save()` and exit.
///    Every item any of them added must be in the file.
/// 3. *SQLite beside it* (``SQLiteComparison``): the work of part 1 through `python3`'s
///    `sqlite3`, for a transactions-per-second ratio. Not a verdict.
/// 4. *By hand beside it* (``ByHandTransactions``): the work of part 1 written by hand with the
///    same lock and durable rename, without Keepsake: the floor of the protocol, so the two
///    ratios tell what the library costs and what the protocol costs. Not a verdict.
public struct ProcessesCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// The `keepsake-stress` executable to start as the children.
    public var executable: String
    /// Processes of the transactions part.
    public var processes = 8
    /// Transactions (items) per process of the transactions part.
    public var transactions = 200
    /// Processes of the merging part; 0 skips it.
    public var mergingProcesses = 4
    /// Items per process of the merging part.
    public var mergingItems = 100
    /// Makes the merging processes' pauses repeatable.
    public var seed: UInt64 = 1
    /// How the transactions part's children write.
    ///
    /// By default with `update`, or with `withTransaction`; ``ProcessesChild/Mode/unmerged`` is
    /// the deliberately broken writer of the campaign's own tests, which must lose items.
    public var transactionWriter = ProcessesChild.Mode.update
    /// Whether to run the SQLite comparison (when `python3` is on `PATH`).
    public var comparesWithSQLite = true
    /// Whether to run the same transactions by hand, without Keepsake.
    public var comparesWithByHand = true
    /// How long a part's children may run before they are killed and counted as failed.
    public var timeout = 120.0

    /// The default campaign, starting `executable` as the children.
    public init(executable: String) { self.executable = executable }
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) { self.configuration = configuration }

  /// What the parts found, in print order.
  private struct Findings {
    var figures: [CampaignReport.Figure] = []
    var failures: [String] = []
    var notes: [String] = []
    var temporaryLeft = 0
  }

  /// What the final file of a part held.
  private struct Count {
    var items = 0
    var lost = 0
    var duplicated = 0
    var ids: Set<String> = []
    var failures: [String] = []
  }

  /// Runs the parts and reports the figures.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var findings = Findings()
    do {
      let (keepsakeRate, timing) = try runTransactions(&findings)
      if configuration.mergingProcesses > 0 { try runMerging(&findings) }
      if configuration.comparesWithSQLite {
        if let python = SQLiteComparison.findPython() {
          try runSQLite(python, keepsakeRate: keepsakeRate, timing: timing, &findings)
        } else {
          findings.notes.append("sqlite: not measured (python3 missing)")
        }
      }
      if configuration.comparesWithByHand { try runByHand(keepsakeRate: keepsakeRate, &findings) }
    } catch {
      findings.failures.append("the campaign could not run: \(error)")
    }
    findings.figures.append(.init("temporary files left", findings.temporaryLeft, isLoss: true))
    var settings =
      "\(configuration.processes) processes × \(configuration.transactions) transactions"
      + " (\(configuration.transactionWriter.rawValue) writer)"
    if configuration.mergingProcesses > 0 {
      settings +=
        ", \(configuration.mergingProcesses) × \(configuration.mergingItems) merging"
        + ", seed \(configuration.seed)"
    }
    return CampaignReport(
      campaign: "processes", settings: ([settings] + findings.notes).joined(separator: "; "),
      figures: findings.figures, failures: findings.failures,
      seconds: started.duration(to: .now).seconds)
  }

  /// Part 1; returns Keepsake's transactions per second and where their time went.
  private func runTransactions(_ findings: inout Findings) throws -> (Double, LockTiming) {
    let scratch = try ScratchFolder(campaign: "processes-transactions")
    defer { scratch.remove() }
    let folder = scratch.url
    let url = folder.appendingPathComponent("items.json")
    let group = runChildren(
      "transactions process", mode: configuration.transactionWriter, url: url,
      processes: configuration.processes, count: configuration.transactions)
    findings.failures += group.failures
    findings.temporaryLeft += scratch.temporaryFiles().count
    let totals = group.doneTotals(count: 3)
    let count = Self.count(
      url, unmerged: configuration.transactionWriter == .unmerged, group: group,
      expected: ProcessItem.expected(
        processes: configuration.processes, count: configuration.transactions))
    findings.failures += count.failures
    let copies = Self.conflictCopies(in: folder)
    let acknowledged = group.added.count
    let rate = group.seconds > 0 ? Double(acknowledged) / group.seconds : 0
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int
    findings.figures +=
      [
        .init("transactions", acknowledged),
        .init("items in the file", count.items),
        .init("lost items", count.lost, isLoss: true),
        .init("duplicated items", count.duplicated, isLoss: true),
        .init("transaction processes failed", group.failures.count, isLoss: true),
        .init("transactions per second", Int(rate.rounded())),
        .init("parallel phase (ms)", Int((group.seconds * 1000).rounded())),
        .init("file size at the end (bytes)", size ?? 0),
      ] + Self.timingFigures(group.timing, seconds: group.seconds, prefix: "")
    if configuration.transactionWriter == .unmerged || !copies.files.isEmpty {
      // The rule "Processes that share a file lose nothing" keeps what a save could not merge:
      // the file lost these, a person can find them.
      let recovered = Set(copies.ids).intersection(group.added).subtracting(count.ids)
      findings.figures += [
        .init("conflicts kept both", totals[2]),
        .init("conflict copies", copies.files.count),
        .init("lost items found in conflict copies", recovered.count),
      ]
    }
    return (rate, group.timing)
  }

  /// Where a part's transactions spent their time: every process takes turns on one lock, so
  /// its share of the parallel phase says whether the lock sets the rate, and the time in it
  /// per transaction splits into the write protocol's own calls and the rest.
  private static func timingFigures(
    _ timing: LockTiming, seconds: Double, prefix: String
  ) -> [CampaignReport.Figure] {
    guard timing.holds > 0 else { return [] }
    let share = seconds > 0 ? Double(timing.heldNanoseconds) / 1e9 / seconds : 0
    return [
      .init("\(prefix)lock held (% of the parallel phase)", Int((share * 100).rounded())),
      .init(
        "\(prefix)in the lock per transaction (µs)", Int((timing.secondsPerHold * 1e6).rounded())),
      .init(
        "\(prefix)write protocol's calls per transaction (µs)",
        Int((timing.protocolSecondsPerWrite * 1e6).rounded())),
      .init(
        "\(prefix)processor time per transaction (µs, all processes)",
        Int((timing.processorSecondsPerHold * 1e6).rounded())),
    ]
  }

  /// Part 2.
  private func runMerging(_ findings: inout Findings) throws {
    let scratch = try ScratchFolder(campaign: "processes-merging")
    defer { scratch.remove() }
    let folder = scratch.url
    let url = folder.appendingPathComponent("items.json")
    let group = runChildren(
      "merging process", mode: .merging, url: url, processes: configuration.mergingProcesses,
      count: configuration.mergingItems)
    findings.failures += group.failures
    findings.temporaryLeft += scratch.temporaryFiles().count
    let totals = group.doneTotals(count: 3)
    let count = Self.count(
      url, unmerged: false, group: group,
      expected: ProcessItem.expected(
        processes: configuration.mergingProcesses, count: configuration.mergingItems))
    findings.failures += count.failures
    findings.figures += [
      .init("merging: items added", group.added.count),
      .init("merging: items in the file", count.items),
      .init("merging: lost items", count.lost, isLoss: true),
      .init("merging: duplicated items", count.duplicated, isLoss: true),
      .init("merging: processes failed", group.failures.count, isLoss: true),
      .init("merging: merges seen", totals[1]),
      .init("merging: conflicts kept both", totals[2]),
      .init("merging: conflict copies", Self.conflictCopies(in: folder).files.count),
    ]
  }

  /// Part 3.
  private func runSQLite(
    _ python: String, keepsakeRate: Double, timing: LockTiming, _ findings: inout Findings
  ) throws {
    let scratch = try ScratchFolder(campaign: "processes-sqlite")
    defer { scratch.remove() }
    let folder = scratch.url
    let sqlite = SQLiteComparison.run(
      python: python, processes: configuration.processes,
      transactions: configuration.transactions, folder: folder, timeout: configuration.timeout)
    let rate = sqlite.seconds > 0 ? Double(sqlite.rows) / sqlite.seconds : 0
    let ratio = rate > 0 ? keepsakeRate / rate : 0
    findings.figures += [
      .init("sqlite transactions per second", Int(rate.rounded())),
      .init("sqlite parallel phase (ms)", Int((sqlite.seconds * 1000).rounded())),
      .init("sqlite rows", sqlite.rows),
      .init("keepsake/sqlite throughput (%)", Int((ratio * 100).rounded())),
    ]
    // NB: the calls of rule 4 alone, as Keepsake's transactions made them, against SQLite's
    // whole transaction: above 200, half of SQLite's rate is out of reach of this protocol.
    if timing.writes > 0, sqlite.rows > 0, sqlite.seconds > 0 {
      let sqliteTransaction = sqlite.seconds / Double(sqlite.rows)
      findings.figures.append(
        .init(
          "write protocol's calls/sqlite transaction (%)",
          Int((timing.protocolSecondsPerWrite / sqliteTransaction * 100).rounded())))
    }
    // NB: the comparison is not a verdict, so its own problems are a note, not a failure.
    let problems =
      sqlite.failures.isEmpty ? "" : ", " + sqlite.failures.prefix(3).joined(separator: ", ")
    findings.notes.append(
      "sqlite: \(sqlite.journalMode) journal, synchronous=FULL, BEGIN IMMEDIATE\(problems)")
  }

  /// Part 4: by hand with Foundation's coders, then the protocol alone.
  private func runByHand(keepsakeRate: Double, _ findings: inout Findings) throws {
    var problems: [String] = []
    for mode in [ProcessesChild.Mode.byHand, .protocolOnly] {
      let scratch = try ScratchFolder(campaign: "processes-\(mode.rawValue)")
      defer { scratch.remove() }
      let url = scratch.url.appendingPathComponent("items.json")
      let group = runChildren(
        "\(mode.rawValue) process", mode: mode, url: url, processes: configuration.processes,
        count: configuration.transactions)
      let count = Self.count(
        url, unmerged: false, group: group,
        expected: ProcessItem.expected(
          processes: configuration.processes, count: configuration.transactions))
      let rate = group.seconds > 0 ? Double(group.added.count) / group.seconds : 0
      let ratio = rate > 0 ? keepsakeRate / rate : 0
      findings.figures +=
        [
          .init("\(mode.rawValue) items in the file", count.items),
          .init("\(mode.rawValue) transactions per second", Int(rate.rounded())),
          .init("keepsake/\(mode.rawValue) throughput (%)", Int((ratio * 100).rounded())),
        ] + Self.timingFigures(group.timing, seconds: group.seconds, prefix: "\(mode.rawValue) ")
      problems += group.failures + count.failures
    }
    // NB: yardsticks, like SQLite: their own problems are a note, not a failure.
    findings.notes.append(
      "by hand: flock, JSONDecoder, JSONEncoder, fsync, rename, fsync of the folder;"
        + " protocol only: the same without the coders"
        + (problems.isEmpty ? "" : ", " + problems.prefix(3).joined(separator: ", ")))
  }

  private func runChildren(
    _ name: String, mode: ProcessesChild.Mode, url: URL, processes: Int, count: Int
  ) -> ChildGroup {
    ProcessesChild.runGroup(
      name, executable: configuration.executable, prefix: ["processes-child"], mode: mode,
      url: url, processes: processes, count: count, seed: configuration.seed,
      timeout: configuration.timeout)
  }

  /// Reads `url` through a fresh key, as an app started afterwards would, and counts the items
  /// `group`'s children acknowledged that are missing from it and the items in it more than
  /// once.
  ///
  /// NB: lost means acknowledged and missing. An item of a child that died before its save
  /// returned was never promised; the child's failure fails the campaign by itself.
  private static func count(
    _ url: URL, unmerged: Bool, group: ChildGroup, expected: Set<String>
  ) -> Count {
    var count = Count()
    let (items, loadError) = read(url, unmerged: unmerged)
    if let loadError { count.failures.append("the final file does not read: \(loadError)") }
    let ids = items.map(\.id)
    let unique = Set(ids)
    count.items = ids.count
    count.ids = unique
    count.duplicated = ids.count - unique.count
    count.lost = Set(group.added).subtracting(unique).count
    let unexpected = unique.subtracting(expected)
    if !unexpected.isEmpty {
      count.failures.append(
        "\(unexpected.count) items no process added, such as \(unexpected.sorted().prefix(3))")
    }
    return count
  }

  static func read(_ url: URL, unmerged: Bool) -> (items: [ProcessItem], error: String?) {
    // NB: a context of its own, so the value comes from the file, not from a cached reference.
    StorageContext.withValue(.disk(name: "processes check \(UUID().uuidString)")) {
      if unmerged {
        @Shared(.fileStorage(url)) var list = UnmergeableItems()
        return (list.items, $list.loadError.map { "\($0)" })
      }
      @Shared(.fileStorage(url)) var items: [ProcessItem] = []
      return (items, $items.loadError.map { "\($0)" })
    }
  }

  /// The conflict copies in `folder`, and every item in them.
  private static func conflictCopies(in folder: URL) -> (files: [String], ids: [String]) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    let copies = names.filter {
      KeptCopy(url: folder.appendingPathComponent($0))?.reason == .conflict
    }
    let ids = copies.flatMap { name in
      FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
        .flatMap(ProcessItem.decodeAny)?.map(\.id) ?? []
    }
    return (copies, ids)
  }
}
