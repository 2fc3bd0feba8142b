import Foundation
import Keepsake

/// One schedule run from start to end, and judged.
struct ScheduleRun {
  let schedule: Schedule
  let figures: Simulation.Figures
  let checker: PromiseChecker
  /// What happened after each event, when asked for.
  let log: [String]

  init(_ schedule: Schedule, flaws: SimulatedFlaws, logging: Bool = false) {
    let simulation = Simulation(setup: schedule.setup, flaws: flaws, logging: logging)
    for event in schedule.events { simulation.apply(event) }
    simulation.finish()
    self.init(schedule: schedule, simulation: simulation)
  }

  /// A run whose events were applied already (as the generator does while it draws them).
  init(schedule: Schedule, simulation: Simulation) {
    self.schedule = schedule
    self.figures = simulation.figures
    self.checker = PromiseChecker.check(simulation.facts.all)
    self.log = simulation.log ?? []
    simulation.tearDown()
  }

  var violations: [PromiseChecker.Violation] { checker.violations }
}

/// Shrinks a failing schedule to the fewest events that still break the same promise, by delta
/// debugging over its events (ddmin): drop chunks while it still fails, halving the chunks
/// until single events, then one event at a time.
struct ScheduleShrinker {
  let flaws: SimulatedFlaws
  let kind: PromiseChecker.Violation.Kind
  /// The most schedules it runs.
  var budget = 4_000

  private func fails(_ setup: Schedule.Setup, _ events: [SimulationEvent]) -> Bool {
    ScheduleRun(Schedule(setup: setup, events: events), flaws: flaws).violations.contains {
      $0.kind == kind
    }
  }

  func shrink(_ schedule: Schedule) -> Schedule {
    var events = schedule.events
    var runs = 0
    var chunks = 2
    while events.count >= 2 && runs < budget {
      let size = max(1, (events.count + chunks - 1) / chunks)
      var reduced = false
      var start = 0
      while start < events.count && runs < budget {
        var candidate = events
        candidate.removeSubrange(start..<min(events.count, start + size))
        runs += 1
        if fails(schedule.setup, candidate) {
          events = candidate
          chunks = max(chunks - 1, 2)
          reduced = true
          break
        }
        start += size
      }
      if !reduced {
        if size == 1 { break }
        chunks = min(chunks * 2, events.count)
      }
    }
    let setup = simpler(schedule.setup, events)
    // What no longer names a process or a file of the setup does nothing: left out.
    let needed = events.filter { $0.fits(setup) }
    return Schedule(setup: setup, events: fails(setup, needed) ? needed : events)
  }

  /// The setup with what the events do not need taken away, where it still fails: fewer
  /// processes and files, files missing at the start.
  private func simpler(_ setup: Schedule.Setup, _ events: [SimulationEvent]) -> Schedule.Setup {
    var setup = setup
    var candidates: [Schedule.Setup] = []
    if setup.processes > 1 {
      var fewer = setup
      fewer.processes -= 1
      candidates.append(fewer)
    }
    if setup.files == 2 {
      var one = setup
      one.files = 1
      one.initial[1] = .missing
      candidates.append(one)
    }
    for file in 0..<setup.files where setup.initial[file] != .missing {
      var missing = setup
      missing.initial[file] = .missing
      candidates.append(missing)
    }
    for candidate in candidates where fails(candidate, events) {
      // NB: one simplification at a time, each checked on the last that still failed.
      setup = simpler(candidate, events)
      break
    }
    return setup
  }
}
