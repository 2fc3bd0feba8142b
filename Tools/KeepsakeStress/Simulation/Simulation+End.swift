import Foundation
import Keepsake

// The quiet end of a schedule, after its last event.

extension Simulation {
  /// Ends the schedule: the disk heals, outside writers finish (and restore a file left
  /// unreadable), and every process comes to rest (open transactions are committed by their
  /// bodies) with no flush asked for; then every live process loads what it could not read and
  /// flushes, a fresh launch opens every file, and the state of everything is recorded.
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
      // NB: only a launch that added items can have left one unsaved (asking a key for its
      // errors costs more than a schedule's step).
      for file in files where !process.added[file.rawValue].isEmpty {
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
    // NB: a launch takes in what earlier processes left beside a file (a change kept when its
    // save was refused, a file a dying save swapped out), then reads it: it comes to rest
    // before what it holds is recorded.
    _ = settle(only: fresh)
    recordFinal(fresh)
    kill(fresh)
    figures.faultsHit = disk.faultsHit
    figures.outsideEdits = outside.started
    let folder = SimulatedFile.folder.path + "/"
    facts.append(.listing(disk.memory.files.filter { $0.key.hasPrefix(folder) }))
    if log != nil { logEvent("end") }
  }

  /// Lets go of every process, so nothing of the schedule outlives it (a live process, its
  /// lanes and its references hold each other).
  func tearDown() {
    for index in processes.indices {
      guard let process = processes[index] else { continue }
      process.die()
      clockwork.discardTimers(of: process)
      disk.removeWatchers(of: process)
      process.releaseKeys()
    }
  }

  func recordFinal(_ process: SimulatedProcess) {
    for file in files {
      guard let key = process.keys[file.rawValue] else { continue }
      facts.append(
        .final(
          file: file.rawValue, by: process.name, memory: key.names(),
          saveError: key.saveError().map { "\($0)" }, loadError: key.loadError().map { "\($0)" }))
    }
  }

  /// Runs `process`'s watchers, lanes and timers until nothing is left.
  func settle(only process: SimulatedProcess) -> Bool {
    for _ in 0..<200_000 {
      let ran = runTurn(of: process)
      if !ran && !clockwork.advanceToNextTimer() { return true }
    }
    facts.append(.unsettled("a fresh launch still busy after 200,000 rounds"))
    return false
  }

  /// Delivers `process`'s notifications and runs the next piece of work of each of its lanes;
  /// whether anything ran.
  private func runTurn(of process: SimulatedProcess) -> Bool {
    var ran = false
    if disk.hasNotifications(for: process) {
      disk.deliver(to: process)
      ran = true
    }
    for file in files {
      if let lane = process.lane(file.rawValue), clockwork.runNext(on: lane) {
        figures.turns += 1
        ran = true
      }
    }
    return ran
  }

  /// Runs every lane, watcher and timer until nothing is left, in a fixed order.
  ///
  /// Transactions whose bodies were running are committed. `false` (and an `unsettled` fact)
  /// if the processes never come to rest.
  func settle() -> Bool {
    for _ in 0..<200_000 {
      var ran = false
      for case let process? in processes where process.isAlive {
        for file in files {
          if case .open? = process.transactions[file.rawValue] {
            _ = request(.commit, process.process, file.rawValue)
          }
        }
        if runTurn(of: process) {
          ran = true
          // NB: everything: at the end, a report spaced out after another arrives on a turn
          // that writes nothing.
          if process.isAlive { observe(process, everything: true) }
        }
      }
      progressExits()
      if !ran && !clockwork.advanceToNextTimer() { return true }
    }
    facts.append(.unsettled("still busy after 200,000 rounds"))
    return false
  }
}
