import Dispatch
import Foundation
import Keepsake
import Synchronization

/// Deterministic simulation of the whole persistence layer: schedules drawn from a seed, each
/// several processes over one in-memory disk, judged by a checker written apart from the code
/// it checks.
///
/// Each schedule (``Schedule``) starts 2-4 simulated processes, each with a storage context of
/// its own over one shared disk, on a virtual clock; every lane and timer of every process is
/// in one ready set that the seeded schedule picks from, one step of a job at a time. Its
/// events interleave local mutations, coalesced-save timers, `save`, `flush`, `load`, `update`
/// (bodies that throw too), transactions whose bodies add a pair of items over several events
/// and commit or throw, other programs writing the files in every style (``OutsideStyle``),
/// kills at any step (also between a write's temporary file and its rename) and restarts, exits,
/// locks held by other programs past the lock timeout, and disk faults. The schedule then ends
/// quietly and ``PromiseChecker`` holds everything that happened to Keepsake's promises.
///
/// The same seed replays the same schedules exactly. A schedule that breaks a promise is
/// printed with its seed and index, and shrunk to the fewest events that still break it, in
/// the text form `--replay` takes.
public struct SimulationCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How many schedules run.
    public var schedules = 100_000
    /// The seed every schedule is drawn from (with its index).
    public var seed: UInt64 = 1
    /// The index of the first schedule, to run one schedule of a seeded run again.
    public var first = 0
    /// How many events a schedule has (drawn from the range).
    public var events = 12...60
    /// How many threads run schedules.
    public var workers = 2
    /// After this many failing schedules the run stops (the first of each broken promise is
    /// shrunk and printed).
    public var failuresToStop = 20
    /// Runs this one schedule instead of drawing any, and logs what happened after each event.
    public var replay: Schedule?
    /// Losses of the persistence put back on purpose: the campaign must see them.
    package var flaws: SimulatedFlaws = []
    /// Gets the log of a replayed schedule: each event, what it led to, and the state after it.
    public var log: (@Sendable ([String]) -> Void)?

    /// The default run.
    public init() {}
  }

  /// A failing schedule: where it came from, what it broke, and its shrunk form.
  public struct Failure: Sendable {
    /// The schedule's index in its seeded run (`nil` for a replayed one).
    public var index: Int?
    /// What it broke, first.
    public var violation: String
    /// The schedule as drawn.
    public var schedule: Schedule
    /// The fewest events that still break the same promise.
    public var shrunk: Schedule
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  private struct Tally {
    var schedules = 0
    var figures = Simulation.Figures()
    var violations = 0
    var exemptions = PromiseChecker.Exemptions()
    var failures: [(Int?, ScheduleRun)] = []

    mutating func add(_ run: ScheduleRun, index: Int?) {
      schedules += 1
      let other = run.figures
      figures.events += other.events
      figures.launches += other.launches
      figures.kills += other.kills
      figures.killsInWrite += other.killsInWrite
      figures.exits += other.exits
      figures.lockTimeouts += other.lockTimeouts
      figures.acknowledged += other.acknowledged
      figures.committed += other.committed
      figures.rolledBack += other.rolledBack
      figures.merges += other.merges
      figures.keptBoth += other.keptBoth
      figures.deletedElsewhere += other.deletedElsewhere
      figures.faultsHit += other.faultsHit
      figures.fieldEdits += other.fieldEdits
      figures.olderModelEdits += other.olderModelEdits
      figures.turns += other.turns
      figures.outsideEdits.merge(other.outsideEdits, uniquingKeysWith: +)
      exemptions.racedItems += run.checker.exemptions.racedItems
      exemptions.racedUnreadable += run.checker.exemptions.racedUnreadable
      violations += run.violations.count
      if !run.violations.isEmpty { failures.append((index, run)) }
    }

    mutating func merge(_ other: Tally) {
      schedules += other.schedules
      figures.events += other.figures.events
      figures.launches += other.figures.launches
      figures.kills += other.figures.kills
      figures.killsInWrite += other.figures.killsInWrite
      figures.exits += other.figures.exits
      figures.lockTimeouts += other.figures.lockTimeouts
      figures.acknowledged += other.figures.acknowledged
      figures.committed += other.figures.committed
      figures.rolledBack += other.figures.rolledBack
      figures.merges += other.figures.merges
      figures.keptBoth += other.figures.keptBoth
      figures.deletedElsewhere += other.figures.deletedElsewhere
      figures.faultsHit += other.figures.faultsHit
      figures.fieldEdits += other.figures.fieldEdits
      figures.olderModelEdits += other.figures.olderModelEdits
      figures.turns += other.figures.turns
      figures.outsideEdits.merge(other.figures.outsideEdits, uniquingKeysWith: +)
      exemptions.racedItems += other.exemptions.racedItems
      exemptions.racedUnreadable += other.exemptions.racedUnreadable
      violations += other.violations
      failures += other.failures
    }
  }

  /// Draws schedule `index` of the seeded run and runs it.
  static func generate(
    seed: UInt64, index: Int, events: ClosedRange<Int>, flaws: SimulatedFlaws,
    logging: Bool = false
  ) -> ScheduleRun {
    // One seeded generator draws everything of the schedule: its setup, length and events.
    var generator = ScheduleGenerator(seed: seed, schedule: index)
    let setup = generator.setup()
    let length = generator.length(in: events)
    let simulation = Simulation(setup: setup, flaws: flaws, logging: logging)
    let drawn = generator.run(simulation, length: length)
    simulation.finish()
    return ScheduleRun(schedule: Schedule(setup: setup, events: drawn), simulation: simulation)
  }

  /// Runs the schedules (or the one replayed) and reports.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var tally = Tally()
    if let replay = configuration.replay {
      let run = ScheduleRun(replay, flaws: configuration.flaws, logging: true)
      tally.add(run, index: nil)
      configuration.log?(run.log)
    } else {
      tally = runSeeded()
    }
    var failures: [String] = []
    var kinds: [PromiseChecker.Violation.Kind] = []
    var schedulesByKind: [PromiseChecker.Violation.Kind: Int] = [:]
    for (index, run) in tally.failures {
      let kind = run.violations[0].kind
      schedulesByKind[kind, default: 0] += 1
      guard !kinds.contains(kind) else { continue }
      kinds.append(kind)
      failures.append(describe(failure(index, run)))
    }
    if tally.failures.count >= configuration.failuresToStop && configuration.replay == nil {
      failures.append(
        "stopped after \(tally.failures.count) failing schedules: "
          + kinds.map { "\(schedulesByKind[$0] ?? 0) broke \"\($0.rawValue)\"" }.joined(
            separator: ", "))
    }
    let figures = tally.figures
    var report = CampaignReport(
      campaign: "simulation", settings: settings, figures: [],
      failures: failures, seconds: 0)
    report.figures = [
      .init("schedules", tally.schedules),
      .init("events", figures.events),
      .init("lane steps run", figures.turns),
      .init("processes started (launches)", figures.launches),
      .init("kills", figures.kills + figures.killsInWrite),
      .init("kills between a write's temporary file and its rename", figures.killsInWrite),
      .init("exits (exit flush)", figures.exits),
      .init("outside-writer styles", figures.outsideEdits.filter { $0.value > 0 }.count),
      .init("outside edits", figures.outsideEdits.values.reduce(0, +)),
      .init("fields set", figures.fieldEdits),
      .init("fields set by an older model", figures.olderModelEdits),
      .init("faults injected", figures.faultsHit),
      .init("lock timeouts", figures.lockTimeouts),
      .init("acknowledged requests", figures.acknowledged),
      .init("transactions committed", figures.committed),
      .init("transactions rolled back", figures.rolledBack),
      .init("conflicts reported: merged", figures.merges),
      .init("conflicts reported: kept both", figures.keptBoth),
      .init("conflicts reported: deleted elsewhere", figures.deletedElsewhere),
      .init("written over unseen", tally.exemptions.racedItems, isLoss: true),
      .init("violations", tally.violations, isLoss: true),
    ]
    report.seconds = started.duration(to: .now).seconds
    return report
  }

  private var settings: String {
    var words: [String] = []
    if configuration.replay != nil {
      words.append("replay")
    } else {
      words.append("seed \(configuration.seed)")
      if configuration.first != 0 { words.append("from \(configuration.first)") }
      words.append("\(configuration.schedules) schedules of \(configuration.events) events")
    }
    if !configuration.flaws.isEmpty { words.append("flaw \(Self.name(of: configuration.flaws))") }
    return words.joined(separator: ", ")
  }

  private func runSeeded() -> Tally {
    let workers = max(1, min(configuration.workers, configuration.schedules))
    let results = Mutex<[Tally]>([])
    let stop = Atomic<Int>(0)
    let configuration = configuration
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var tally = Tally()
      var index = configuration.first + worker
      let end = configuration.first + configuration.schedules
      while index < end && stop.load(ordering: .relaxed) < configuration.failuresToStop {
        let run = Self.generate(
          seed: configuration.seed, index: index, events: configuration.events,
          flaws: configuration.flaws)
        tally.add(run, index: index)
        if !run.violations.isEmpty { stop.add(1, ordering: .relaxed) }
        index += workers
      }
      results.withLock { $0.append(tally) }
    }
    var total = Tally()
    for tally in results.withLock({ $0 }) { total.merge(tally) }
    total.failures.sort { ($0.0 ?? 0) < ($1.0 ?? 0) }
    return total
  }

  private func failure(_ index: Int?, _ run: ScheduleRun) -> Failure {
    let first = run.violations[0]
    let shrunk = ScheduleShrinker(flaws: configuration.flaws, kind: first.kind).shrink(
      run.schedule)
    return Failure(
      index: index, violation: first.description, schedule: run.schedule, shrunk: shrunk)
  }

  private func describe(_ failure: Failure) -> String {
    let flaw = configuration.flaws.isEmpty ? "" : " --flaw \(Self.name(of: configuration.flaws))"
    let origin =
      failure.index.map {
        "schedule \($0) of seed \(configuration.seed) (--seed \(configuration.seed) --first \($0) "
          + "--schedules 1)"
      } ?? "the replayed schedule"
    return
      "\(origin): \(failure.violation); shrunk from \(failure.schedule.events.count) to "
      + "\(failure.shrunk.events.count) events: keepsake-stress --campaign simulation\(flaw) "
      + "--replay '\(failure.shrunk)'"
  }

  /// The names `--flaw` takes.
  package static let flawNames: [(String, SimulatedFlaws)] = [
    ("swaps-without-looking", .swapsWithoutLooking)
  ]

  static func name(of flaws: SimulatedFlaws) -> String {
    flawNames.filter { flaws.contains($0.1) }.map(\.0).joined(separator: ",")
  }
}
