import Foundation
import Keepsake

/// One schedule, run: simulated processes over one disk, every event applied in order on one
/// thread, then a quiet end (the disk heals, outside writers finish, every process flushes, a
/// fresh launch opens every file), recording the facts the checker judges.
///
/// Given the same schedule it does the same thing: the clock is virtual, every lane and timer
/// runs when the schedule says, and watcher events arrive when it says.
///
/// NB: `@unchecked Sendable`: one schedule runs on one thread; the library calls back into it
/// (its lanes, the waiters of requests, update bodies) only from the work the simulation runs.
final class Simulation: @unchecked Sendable {
  /// What one schedule did, for the campaign's figures.
  struct Figures {
    var events = 0
    var launches = 0
    var kills = 0
    var killsInWrite = 0
    var exits = 0
    var lockTimeouts = 0
    var acknowledged = 0
    var committed = 0
    var rolledBack = 0
    var merges = 0
    var keptBoth = 0
    var deletedElsewhere = 0
    var outsideEdits: [OutsideStyle: Int] = [:]
    var fieldEdits = 0
    var olderModelEdits = 0
    var faultsHit = 0
    var turns = 0
  }

  let setup: Schedule.Setup
  let clockwork = SimulatedClockwork()
  let facts = SimulationRecord()
  let disk: SimulatedDisk
  let outside: OutsideWriter
  let flaws: SimulatedFlaws
  /// The launch of each process now; `nil` while it is dead.
  private(set) var processes: [SimulatedProcess?]
  private var launches = 0
  private var counters: [Int]
  var outsideLocks: [FileLock?] = [nil, nil]
  var figures = Figures()
  /// What happened, event by event, when asked for (two runs of a schedule log the same).
  var log: [String]?
  /// How many facts the log has shown.
  var loggedFacts = 0

  var files: [SimulatedFile] { Array(SimulatedFile.allCases.prefix(setup.files)) }

  init(setup: Schedule.Setup, flaws: SimulatedFlaws = [], logging: Bool = false) {
    self.setup = setup
    self.flaws = flaws
    self.disk = SimulatedDisk(facts: facts) { [clockwork] in clockwork.now }
    self.outside = OutsideWriter(disk: disk)
    disk.savingFile = { [unowned outside] file in outside.landDuringSave(file) }
    disk.savedFile = { [unowned outside] file in outside.landAfterSave(file) }
    self.processes = Array(repeating: nil, count: setup.processes)
    self.counters = Array(repeating: 0, count: setup.processes)
    if logging { log = [] }
    for file in files { outside.seed(file, with: setup.initial[file.rawValue]) }
    for slot in 0..<setup.processes { launch(slot) }
    if logging { logEvent("start") }
  }

  // MARK: - Processes

  func live(_ slot: Int) -> SimulatedProcess? {
    guard processes.indices.contains(slot), let process = processes[slot], process.isAlive
    else { return nil }
    return process
  }

  /// Starts process `slot` (again): a fresh context over the shared disk, its keys opened.
  ///
  /// A slot past the schedule's processes is the fresh launch at the end, run by no event.
  @discardableResult
  func launch(_ slot: Int) -> SimulatedProcess {
    launches += 1
    figures.launches += 1
    let process = SimulatedProcess(process: slot, number: launches)
    process.simulation = self
    process.runsOlderModel = setup.olderModel == slot
    let scheduler = SimulatedScheduler(clockwork: clockwork, owner: process)
    process.context = StorageContext(
      name: process.name, fileSystem: ProcessFileSystem(disk: disk, process: process),
      isIsolated: true, scheduler: scheduler
    ) { _ in PreferencesStores.inMemory() }
    if processes.indices.contains(slot) { processes[slot] = process }
    for file in files { process.open(file) }
    observe(process)
    return process
  }

  /// The process dies in the middle of a write (see ``ProcessFileSystem``).
  func killInWrite(_ process: SimulatedProcess) {
    figures.killsInWrite += 1
    kill(process)
  }

  /// The process dies at once: as a kill does, or once its exit flush is done.
  func kill(_ process: SimulatedProcess) {
    guard process.isAlive else { return }
    process.die()
    clockwork.discardTimers(of: process)
    disk.removeWatchers(of: process)
    for file in files {
      switch process.transactions[file.rawValue] {
      case .open(let pair, _)?, .ending(let pair, commit: false)?:
        for item in pair { facts.append(.forbidden(item: item, .abandoned)) }
      default:
        break
      }
    }
    if processes.indices.contains(process.process), processes[process.process] === process {
      processes[process.process] = nil
    }
    process.releaseKeys()
  }

  func nextName(_ slot: Int, _ prefix: String) -> String {
    counters[slot] += 1
    return "\(prefix)\(slot).\(counters[slot])"
  }

  // MARK: - Events

  /// Applies one event of the schedule.
  func apply(_ event: SimulationEvent) {
    figures.events += 1
    var touched: SimulatedProcess?
    switch event {
    case .step(let slot, let file):
      if let process = live(slot), let lane = process.lane(file) {
        if clockwork.runNext(on: lane) { figures.turns += 1 }
        touched = process
      }
    case .deliver(let slot):
      if let process = live(slot) {
        disk.deliver(to: process)
        touched = process
      }
    case .advance(let milliseconds):
      clockwork.advance(by: .milliseconds(milliseconds))
    case .add(let slot, let file):
      touched = add(slot, file)
    case .remove(let slot, let file, let index):
      if let process = app(slot, file), let key = process.keys[file],
        process.transactionPair(file).isEmpty, let removed = key.remove(index)
      {
        facts.append(.removed(item: removed))
        touched = process
      }
    case .editField(let slot, let file, let index):
      if let process = app(slot, file), let key = process.keys[file],
        process.transactionPair(file).isEmpty
      {
        let value = nextName(slot, "e")
        if let (item, field, previous) = key.editField(index, value) {
          process.fieldValues[file].append(value)
          figures.fieldEdits += 1
          if process.runsOlderModel { figures.olderModelEdits += 1 }
          facts.append(
            .fieldSet(
              value: value, item: item, field: field, replacing: previous, by: process.name))
          touched = process
        }
      }
    case .request(let slot, let file, let request):
      touched = self.request(request, slot, file)
    case .kill(let slot):
      if let process = live(slot) {
        figures.kills += 1
        kill(process)
      }
    case .killInNextWrite(let slot):
      live(slot)?.killsInNextWrite = true
    case .restart(let slot):
      if processes.indices.contains(slot), processes[slot] == nil { launch(slot) }
    case .exit(let slot):
      if let process = live(slot), process.exit == nil {
        figures.exits += 1
        process.exit = .waiting(flushed: [], items: [:])
        touched = process
      }
    case .outside(let file, let edit):
      if let file = SimulatedFile(rawValue: file), files.contains(file) {
        outside.start(edit, of: file)
      }
    case .outsideStep(let file):
      if let file = SimulatedFile(rawValue: file) { outside.step(file) }
    case .fault(let operation, let fault, let count):
      disk.arm(operation, fault.fault, count: max(1, count))
    case .holdLock(let file):
      if let file = SimulatedFile(rawValue: file), outsideLocks[file.rawValue] == nil {
        outsideLocks[file.rawValue] = try? disk.memory.lockExclusively(file.url, timeout: .zero)
      }
    case .releaseLock(let file):
      if outsideLocks.indices.contains(file) {
        outsideLocks[file]?.release()
        outsideLocks[file] = nil
      }
    }
    // NB: every event takes a millisecond of virtual time, so timers come due as a schedule
    // goes on.
    clockwork.advance(by: .milliseconds(1))
    if let touched, touched.isAlive { observe(touched) }
    progressExits()
    checkTimeliness()
    if log != nil { logEvent("\(event)") }
  }

  /// Records, for every live process with nothing under way for a file, that its changes must
  /// be on disk (see ``SimulationFact/idle(file:by:)``).
  func checkTimeliness() {
    for case let process? in processes where process.isAlive && process.exit == nil {
      for file in files {
        let index = file.rawValue
        guard !process.added[index].isEmpty, process.transactions[index] == nil,
          let lane = process.lane(index), !lane.hasWork, !clockwork.hasTimers(on: lane),
          let key = process.keys[index]
        else { continue }
        // NB: asked last: a key's errors cost more than the checks above.
        guard key.saveError() == nil, key.loadError() == nil else { continue }
        facts.append(.idle(file: index, by: process.name))
      }
    }
  }

  /// The process of `slot`, if it is alive and its app may act on `file` (it is not exiting).
  func app(_ slot: Int, _ file: Int) -> SimulatedProcess? {
    guard let process = live(slot), process.exit == nil, files.indices.contains(file),
      process.keys[file] != nil
    else { return nil }
    return process
  }

  private func add(_ slot: Int, _ file: Int) -> SimulatedProcess? {
    guard let process = app(slot, file), let key = process.keys[file] else { return nil }
    switch process.transactions[file] {
    case .open(let pair, let halves)?:
      guard halves < 2 else { return nil }
      addHalf(of: pair, halves, to: process, file, key)
    case .ending?:
      // NB: the transaction's body is done; the app adds nothing until it has ended.
      return nil
    case .beginning?, nil:
      let name = nextName(slot, "p")
      key.add(name)
      process.added[file].append(name)
      facts.append(.added(item: name, file: file, by: process.name, origin: .mutation))
    }
    return process
  }

  func addHalf(
    of pair: [String], _ half: Int, to process: SimulatedProcess, _ file: Int,
    _ key: SimulatedKey
  ) {
    key.add(pair[half])
    process.added[file].append(pair[half])
    process.transactions[file] = .open(pair: pair, halves: half + 1)
    facts.append(
      .added(
        item: pair[half], file: file, by: process.name,
        origin: .transaction(partner: pair[1 - half])))
  }

  func acknowledge(
    _ file: Int, _ name: String, _ request: SimulatedRequest, _ items: [String]
  ) {
    figures.acknowledged += 1
    facts.append(.acknowledged(file: file, by: name, request: request, items: items))
  }
}
