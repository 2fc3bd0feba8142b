import Foundation
import Keepsake

// After each event: what the app was told, and exits that move on.

extension Simulation {
  /// Notes what the app of `process` was told after a step: a conflict (told when a save
  /// writes the file, or, with `everything`, later: a report spaced out after another), a save
  /// that gave up waiting for a lock.
  func observe(_ process: SimulatedProcess, everything: Bool = false) {
    if everything { process.wroteFile = true }
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
            // NB: fields changed on both sides keep ours, and theirs in a copy.
            copy = conflict.copy.map(SimulatedDisk.path)
          case .keptBoth(let url):
            figures.keptBoth += 1
            copy = SimulatedDisk.path(url)
          case .deletedElsewhere:
            figures.deletedElsewhere += 1
            copy = nil
          case .notMerged:
            // NB: another device's copy; the simulation has no sync engine.
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
  func progressExits() {
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
}
