import Foundation
import Keepsake

/// One schedule, run: simulated processes over one disk, every event applied in order on one
/// thread, then a quiet end (the disk heals, outside writers finish, every process flushes and
/// every dead one starts again), recording the facts the checker judges.
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
    var faultsHit = 0
    var turns = 0
  }

  let setup: Schedule.Setup
  let clockwork = SimulatedClockwork()
  let facts = SimulationRecord()
  let disk: SimulatedDisk
  let outside: OutsideWriter
  private let flaws: PersistenceFlaws
  /// The launch of each process now; `nil` while it is dead.
  private(set) var processes: [SimulatedProcess?]
  private var launches = 0
  private var counters: [Int]
  private var outsideLocks: [FileLock?] = [nil, nil]
  private(set) var figures = Figures()
  /// What happened, event by event, when asked for (two runs of a schedule log the same).
  private(set) var log: [String]?

  var files: [SimulatedFile] { Array(SimulatedFile.allCases.prefix(setup.files)) }

  init(setup: Schedule.Setup, flaws: PersistenceFlaws = [], logging: Bool = false) {
    self.setup = setup
    self.flaws = flaws
    self.disk = SimulatedDisk(facts: facts) { [clockwork] in clockwork.now }
    self.outside = OutsideWriter(disk: disk)
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
  private func launch(_ slot: Int) -> SimulatedProcess {
    launches += 1
    figures.launches += 1
    let process = SimulatedProcess(process: slot, number: launches)
    process.simulation = self
    let scheduler = SimulatedScheduler(clockwork: clockwork, owner: process, flaws: flaws)
    process.context = StorageContext(
      name: process.name, fileSystem: ProcessFileSystem(disk: disk, process: process),
      isIsolated: true, scheduler: scheduler
    ) { _ in InMemoryPreferences() }
    if processes.indices.contains(slot) { processes[slot] = process }
    for file in files { process.open(file) }
    observe(process)
    return process
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

  private func nextName(_ slot: Int, _ prefix: String) -> String {
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
    if log != nil { logEvent("\(event)") }
  }

  private var loggedFacts = 0

  /// Logs `what` happened, the facts it led to, and the state after it.
  private func logEvent(_ what: String) {
    let new = facts.all[loggedFacts...].map(Self.brief)
    loggedFacts = facts.all.count
    let happened = new.isEmpty ? "" : " [" + new.joined(separator: "; ") + "]"
    log?.append("\(what)\(happened) => \(digest())")
  }

  /// A fact in a few words, for the log.
  private static func brief(_ fact: SimulationFact) -> String {
    func letter(_ file: Int) -> Character { SimulatedFile(rawValue: file)?.letter ?? "?" }
    switch fact {
    case .version(let file, let number, let bytes, let writer, let basedOn):
      let names = SimulatedDecoding.names(in: bytes, of: SimulatedFile(rawValue: file) ?? .items)
      let shown =
        bytes == nil ? "no file" : names.map { "[\($0.joined(separator: ","))]" } ?? "unreadable"
      return
        "\(letter(file))v\(number) \(shown) by \(writer) from v\(basedOn.map(String.init) ?? "-")"
    case .copy(let file, _, _, let writer, let kind):
      return "\(kind) copy of \(letter(file)) by \(writer)"
    case .added(let item, let file, let by, _): return "\(by) adds \(item) to \(letter(file))"
    case .removed(let item): return "\(item) removed"
    case .forbidden(let item, let why): return "\(item) forbidden (\(why))"
    case .acknowledged(let file, let by, let request, let items):
      return "\(by) \(request) of \(letter(file)) ok (\(items.joined(separator: ",")))"
    case .conflictReported(let file, let by, let copy):
      return "\(by) told of a conflict on \(letter(file))\(copy == nil ? "" : " (copy)")"
    case .exitFlushed(let file, let by, _, let error):
      return "\(by) exit flush of \(letter(file))\(error ? " reported an error" : "")"
    case .settled(let file, let by, let error):
      return "\(by) at rest on \(letter(file))\(error ? " with an error" : "")"
    case .final(let file, let by, let memory, let saveError, let loadError):
      let errors = [saveError, loadError].compactMap { $0 }.joined(separator: "; ")
      return "\(by) ends with [\(memory.joined(separator: ","))] of \(letter(file))"
        + (errors.isEmpty ? "" : " (\(errors))")
    case .listing(let files): return "\(files.count) files in the folder"
    case .unsettled(let why): return why
    }
  }

  /// The process of `slot`, if it is alive and its app may act on `file` (it is not exiting).
  private func app(_ slot: Int, _ file: Int) -> SimulatedProcess? {
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

  private func addHalf(
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

  private func request(
    _ request: SimulatedRequest, _ slot: Int, _ file: Int
  ) -> SimulatedProcess? {
    guard let process = app(slot, file), let key = process.keys[file] else { return nil }
    let name = process.name
    switch request {
    case .save, .flush, .load, .replace:
      let inside: Bool
      if case .open? = process.transactions[file] { inside = true } else { inside = false }
      let items = process.ownItemsInMemory(file)
      let driven: DrivenRequest =
        switch request {
        case .save: .save
        case .flush: .flush
        case .load: .load
        default: .replaceUnreadableData
        }
      key.drive(driven, inside) { [self] outcome in
        guard process.isAlive, case .success = outcome, !inside, request != .load else { return }
        acknowledge(file, name, request, items)
      }
    case .update, .failingUpdate:
      if case .open? = process.transactions[file] { return nil }
      let item = nextName(slot, "u")
      let items = process.ownItemsInMemory(file)
      let throwing = request == .failingUpdate
      key.update(
        item, throwing,
        { [self] in
          if throwing {
            facts.append(.forbidden(item: item, .bodyThrew))
          } else if !process.added[file].contains(item) {
            process.added[file].append(item)
            facts.append(.added(item: item, file: file, by: name, origin: .mutation))
          }
        },
        { [self] outcome in
          guard process.isAlive, case .success = outcome, !throwing else { return }
          acknowledge(file, name, request, items + [item])
        })
    case .begin:
      guard process.transactions[file] == nil else { return nil }
      process.transactions[file] = .beginning
      key.drive(.begin, false) { [self] outcome in
        guard process.isAlive, process.transactions[file] == .beginning else { return }
        switch outcome {
        case .success:
          let base = nextName(slot, "t")
          process.transactions[file] = .open(pair: [base + "a", base + "b"], halves: 0)
        case .failure:
          process.transactions[file] = nil
        }
      }
    case .commit:
      guard case .open(let pair, let halves)? = process.transactions[file] else { return nil }
      // The body returns: whatever it had left to add, it adds first.
      for half in halves..<2 { addHalf(of: pair, half, to: process, file, key) }
      let items = process.ownItemsInMemory(file) + pair
      process.transactions[file] = .ending(pair: pair, commit: true)
      key.drive(.commit, false) { [self] outcome in
        guard process.isAlive else { return }
        process.transactions[file] = nil
        if case .success = outcome {
          figures.committed += 1
          acknowledge(file, name, request, items)
        }
      }
    case .rollback:
      guard case .open(let pair, _)? = process.transactions[file] else { return nil }
      for item in pair { facts.append(.forbidden(item: item, .rolledBack)) }
      process.transactions[file] = .ending(pair: pair, commit: false)
      figures.rolledBack += 1
      key.drive(.rollback, false) { _ in
        guard process.isAlive else { return }
        process.transactions[file] = nil
      }
    }
    return process
  }

  private func acknowledge(
    _ file: Int, _ name: String, _ request: SimulatedRequest, _ items: [String]
  ) {
    figures.acknowledged += 1
    facts.append(.acknowledged(file: file, by: name, request: request, items: items))
  }

  // MARK: - After each event

  /// Notes what the app of `process` was told after a step: a conflict (told when a save
  /// writes the file), a save that gave up waiting for a lock.
  private func observe(_ process: SimulatedProcess) {
    guard process.wroteFile || process.wasRefusedLock else { return }
    defer {
      process.wroteFile = false
      process.wasRefusedLock = false
    }
    for file in files {
      guard let key = process.keys[file.rawValue] else { continue }
      if process.wroteFile {
        let conflict = key.lastConflict()
        if conflict != process.seenConflict[file.rawValue], let conflict {
          let copy: String?
          switch conflict.resolution {
          case .merged:
            figures.merges += 1
            copy = nil
          case .keptBoth(let url):
            figures.keptBoth += 1
            copy = SimulatedDisk.path(url)
          case .deletedElsewhere:
            figures.deletedElsewhere += 1
            copy = nil
          }
          facts.append(.conflictReported(file: file.rawValue, by: process.name, copy: copy))
        }
        process.seenConflict[file.rawValue] = conflict
      }
      // NB: a save gives up only once its lock was refused for the lock timeout; asking the
      // key for its error on every refusal would cost more than the step.
      if process.wasRefusedLock, let since = process.refusedSince[file.rawValue],
        clockwork.now - since >= FileLock.defaultTimeout
      {
        let gaveUp = Self.isLockTimeout(key.saveError())
        if gaveUp && !process.seenLockTimeout[file.rawValue] { figures.lockTimeouts += 1 }
        process.seenLockTimeout[file.rawValue] = gaveUp
      }
    }
  }

  private static func isLockTimeout(_ error: SharedSaveError?) -> Bool {
    guard case .writeFailed(_, let underlying)? = error,
      let failure = underlying as? FileSystemError, case .lockTimedOut = failure.reason
    else { return false }
    return true
  }

  /// Moves exiting processes on: the exit flush of each file once its running job is done (as
  /// `lane.sync` waits for it), then the end of the process once everything it queued ran.
  private func progressExits() {
    for case let process? in processes where process.exit != nil && process.isAlive {
      switch process.exit {
      case .waiting(var flushed, var items)?:
        for file in files where !flushed.contains(file.rawValue) {
          guard let key = process.keys[file.rawValue], key.phase() != "saving" else { continue }
          if process.transactionPair(file.rawValue).isEmpty {
            items[file.rawValue] = process.ownItemsInMemory(file.rawValue)
          }
          flushed.insert(file.rawValue)
          key.exit()
        }
        process.exit =
          flushed.count == files.count
          ? .flushing(items: items) : .waiting(flushed: flushed, items: items)
      case .flushing(let items)?:
        guard !process.hasWork,
          files.allSatisfy({ process.keys[$0.rawValue]?.phase() != "saving" })
        else { continue }
        for file in files {
          guard let key = process.keys[file.rawValue], let mine = items[file.rawValue] else {
            continue
          }
          facts.append(
            .exitFlushed(
              file: file.rawValue, by: process.name, items: mine,
              reportedError: key.saveError() != nil || key.loadError() != nil))
        }
        kill(process)
      case nil:
        break
      }
    }
  }

  // MARK: - The quiet end

  /// Ends the schedule: the disk heals, outside writers finish, and every process comes to rest
  /// (transactions open are committed by their bodies), with no flush asked for; then every
  /// live process loads what it could not read and flushes, every dead one starts again, and
  /// the state of everything is recorded.
  func finish() {
    disk.disarm()
    for index in outsideLocks.indices {
      outsideLocks[index]?.release()
      outsideLocks[index] = nil
    }
    for case let process? in processes { process.killsInNextWrite = false }
    outside.finishAll()
    outside.restoreUnreadable(files)
    guard settle() else { return }
    for case let process? in processes where process.isAlive {
      for file in files {
        guard let key = process.keys[file.rawValue] else { continue }
        facts.append(
          .settled(
            file: file.rawValue, by: process.name,
            reportedError: key.saveError() != nil || key.loadError() != nil))
      }
    }
    for case let process? in processes where process.isAlive {
      for file in files {
        guard let key = process.keys[file.rawValue] else { continue }
        if key.loadError() != nil { key.drive(.load, false) { _ in } }
        key.drive(.flush, false) { _ in }
      }
    }
    guard settle() else { return }
    for case let process? in processes where process.isAlive { recordFinal(process) }
    // The next launch: it removes what dead writers left, and must read what is there.
    let fresh = launch(processes.count)
    recordFinal(fresh)
    kill(fresh)
    figures.faultsHit = disk.faultsHit
    figures.outsideEdits = outside.started
    let folder = SimulatedFile.folder.path + "/"
    facts.append(.listing(disk.memory.files.filter { $0.key.hasPrefix(folder) }))
    if log != nil { logEvent("end") }
  }

  private func recordFinal(_ process: SimulatedProcess) {
    for file in files {
      guard let key = process.keys[file.rawValue] else { continue }
      facts.append(
        .final(
          file: file.rawValue, by: process.name, memory: key.names(),
          saveError: key.saveError().map { "\($0)" }, loadError: key.loadError().map { "\($0)" }))
    }
  }

  /// Runs every lane, watcher and timer until nothing is left, in a fixed order.
  ///
  /// Transactions whose bodies were running are committed. `false` (and an `unsettled` fact)
  /// if the processes never come to rest.
  private func settle() -> Bool {
    for _ in 0..<200_000 {
      var ran = false
      for case let process? in processes where process.isAlive {
        for file in files {
          if case .open? = process.transactions[file.rawValue] {
            _ = request(.commit, process.process, file.rawValue)
          }
        }
        var ranHere = false
        if disk.hasNotifications(for: process) {
          disk.deliver(to: process)
          ranHere = true
        }
        for file in files {
          if let lane = process.lane(file.rawValue), clockwork.runNext(on: lane) {
            figures.turns += 1
            ranHere = true
          }
        }
        if ranHere {
          ran = true
          if process.isAlive { observe(process) }
        }
      }
      progressExits()
      if !ran && !clockwork.advanceToNextTimer() { return true }
    }
    facts.append(.unsettled("still busy after 200,000 rounds"))
    return false
  }

  /// The state after an event, for the log: the clock, the files (copies by content, since
  /// their names carry the wall-clock time), and the phase of every live process's keys.
  private func digest() -> String {
    var text = "t=\(clockwork.now / .milliseconds(1))ms"
    var copies: [String] = []
    for (path, data) in disk.memory.files.sorted(by: { $0.key < $1.key }) {
      let name = (path as NSString).lastPathComponent
      if Quarantine.isCopy(named: name) {
        copies.append(Self.hash(data))
      } else {
        text += " \(name)=\(Self.hash(data))"
      }
    }
    text += " copies=\(copies.sorted().joined(separator: ","))"
    for case let process? in processes where process.isAlive {
      let phases = files.map { process.keys[$0.rawValue]?.phase() ?? "-" }
      text += " \(process.name):\(phases.joined(separator: ","))"
    }
    return text
  }

  /// FNV-1a: the same bytes give the same number in every process.
  private static func hash(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 36)
  }
}
