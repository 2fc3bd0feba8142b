import Foundation
@_spi(Testing) import Keepsake

/// Makes a schedule from a seed, event by event, looking at the simulation as it runs so that
/// most events do something: a step of a lane that has work, a commit of a transaction that is
/// open, a restart of a process that is dead.
struct ScheduleGenerator {
  private var random: SeededGenerator

  init(seed: UInt64, schedule index: Int) {
    random = SeededGenerator(seed: seed, item: index)
  }

  /// A setup drawn from the seed.
  mutating func setup() -> Schedule.Setup {
    var setup = Schedule.Setup()
    setup.processes = [2, 2, 3, 3, 3, 4][Int.random(in: 0..<6, using: &random)]
    setup.files = Bool.random(using: &random) ? 2 : 1
    if Int.random(in: 0..<3, using: &random) == 0 {
      setup.olderModel = Int.random(in: 0..<setup.processes, using: &random)
    }
    for file in 0..<setup.files {
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<4: setup.initial[file] = .missing
      case 4..<8: setup.initial[file] = .items(Int.random(in: 1...3, using: &random))
      case 8: setup.initial[file] = .unreadable
      default: setup.initial[file] = .leftover
      }
    }
    return setup
  }

  /// How many events the schedule has.
  mutating func length(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

  /// Runs a generated schedule of `length` events on `simulation` and returns the events.
  mutating func run(_ simulation: Simulation, length: Int) -> [SimulationEvent] {
    var events: [SimulationEvent] = []
    events.reserveCapacity(length)
    for _ in 0..<length {
      let event = next(for: simulation)
      simulation.apply(event)
      events.append(event)
    }
    return events
  }

  /// The next event: drawn among those that would do something now, with fixed weights.
  private mutating func next(for simulation: Simulation) -> SimulationEvent {
    var choices: [(weight: Int, event: SimulationEvent)] = []
    func offer(_ weight: Int, _ event: SimulationEvent) { choices.append((weight, event)) }
    let files = simulation.files.map(\.rawValue)
    for slot in simulation.processes.indices {
      guard let process = simulation.live(slot) else {
        offer(30, .restart(process: slot))
        continue
      }
      for file in files where process.lane(file)?.hasWork == true {
        offer(120, .step(process: slot, file: file))
      }
      if simulation.disk.hasNotifications(for: process) { offer(50, .deliver(process: slot)) }
      offer(5, .kill(process: slot))
      offer(3, .killInNextWrite(process: slot))
      guard process.exit == nil else { continue }
      offer(2, .exit(process: slot))
      for file in files { offerApp(process, slot, file, offer) }
    }
    offer(40, .advance(milliseconds: Int.random(in: 1...30, using: &random)))
    offer(1, .advance(milliseconds: 31_000))
    for file in simulation.files {
      if simulation.outside.isBusy(file) {
        offer(40, .outsideStep(file: file.rawValue))
      } else {
        let style = OutsideStyle.allCases.randomElement(using: &random) ?? .atomic
        let removing = Int.random(in: 0..<4, using: &random) == 0
        offer(
          14,
          .outside(
            file: file.rawValue,
            OutsideEdit(style, removing: removing ? Int.random(in: 0..<8, using: &random) : nil)))
      }
      offer(1, .holdLock(file: file.rawValue))
      offer(4, .releaseLock(file: file.rawValue))
    }
    let operations: [FileOperation] = [.write, .rename, .fsync, .read, .lock, .list, .remove]
    let operation = operations.randomElement(using: &random) ?? .write
    let fault = SimulatedFault.allCases.randomElement(using: &random) ?? .ioError
    offer(4, .fault(operation, fault, count: Int.random(in: 1...2, using: &random)))
    let total = choices.reduce(0) { $0 + $1.weight }
    var pick = Int.random(in: 0..<total, using: &random)
    for choice in choices {
      if pick < choice.weight { return choice.event }
      pick -= choice.weight
    }
    return choices[choices.count - 1].event
  }

  /// What the app of a live process may do with `file` now.
  private mutating func offerApp(
    _ process: SimulatedProcess, _ slot: Int, _ file: Int,
    _ offer: (Int, SimulationEvent) -> Void
  ) {
    guard process.keys[file] != nil else { return }
    switch process.transactions[file] {
    case .open(_, let halves)?:
      // The body runs: it adds its pair, suspends (time passes), asks for requests that are
      // part of it, and returns or throws.
      if halves < 2 { offer(30, .add(process: slot, file: file)) }
      if halves == 2 { offer(14, .request(process: slot, file: file, .commit)) }
      offer(5, .request(process: slot, file: file, .rollback))
      offer(2, .request(process: slot, file: file, .flush))
      offer(2, .request(process: slot, file: file, .save))
      offer(1, .request(process: slot, file: file, .load))
    case .ending?:
      return
    case .beginning?, nil:
      offer(25, .add(process: slot, file: file))
      offer(3, .remove(process: slot, file: file, index: Int.random(in: 0..<8, using: &random)))
      if file == SimulatedFile.items.rawValue {
        offer(
          10, .editField(process: slot, file: file, index: Int.random(in: 0..<16, using: &random)))
      }
      offer(4, .request(process: slot, file: file, .save))
      offer(5, .request(process: slot, file: file, .flush))
      offer(3, .request(process: slot, file: file, .load))
      offer(4, .request(process: slot, file: file, .update))
      offer(2, .request(process: slot, file: file, .failingUpdate))
      if process.transactions[file] == nil {
        offer(5, .request(process: slot, file: file, .begin))
      }
      // NB: offered whatever the state (asking a key for its load error costs more than a
      // schedule's step): on a readable file it quarantines readable bytes, which is allowed.
      offer(1, .request(process: slot, file: file, .replace))
    }
  }
}
