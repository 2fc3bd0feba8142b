import Foundation
import Synchronization

// The persistence of a reference, performed: events go into the machine (`PersistenceMachine`),
// which decides; this file performs each effect and each step of shared storage, and sends the
// result back (the steps of a key's own storage are in SharedReference+KeySteps.swift).
//
// A coalesced save of a file key, from `withLock` to the disk:
//   `withLock` → `didMutate()` → `send(.mutated)` → the machine arms the timer →
//   `send(.timerFired(.save))` on the lane → steps `checkPending`, `lock` (`key.lock`),
//   `read` (`key.storedChange`), `reconcile` (merge or keep both, under the value's lock),
//   `write` (`key.write` → `FileSystem.replaceAtomically`), `unlock`.
// An outside change: the watch calls `outsideChange()` → `send(.outsideChange)` → steps `read`,
//   `reconcile` (adopt theirs; or, with a change pending, a save through the merge follows).

extension SharedReference {
  typealias Machine = PersistenceMachine

  /// Feeds `event` to the machine and performs what it decides, running the steps it asks for
  /// on the lane (in this turn when already there and the lane runs jobs in one turn).
  func send(_ event: Machine.Event) {
    var step = perform(decide(event))
    while let next = step {
      guard lane.isCurrent, lane.runsJobsInOneTurn else {
        lane.async { [self] in send(execute(next)) }
        return
      }
      step = perform(decide(execute(next)))
    }
  }

  private func decide(_ event: Machine.Event) -> [Machine.Effect] {
    let now = context.scheduler.now()
    return persistence.handle(event, now: now, reporting: sharedConflict)
  }

  /// Performs every effect but a step, which it returns (the machine asks for at most one, last).
  private func perform(_ effects: [Machine.Effect]) -> Machine.Step? {
    var step: Machine.Step?
    for effect in effects {
      switch effect {
      case .run(let next):
        step = next
      case .arm(let timer, let delay):
        // NB: the timer holds the reference: a pending save keeps it alive until it is written.
        lane.after(delay) { [self] in send(.timerFired(timer)) }
      case .saveIsArmed(let armed):
        saveIsArmed.store(armed, ordering: .releasing)
      case .saveInline:
        saveInline()
      case .publish(let change):
        publish(change)
      case .report:
        break  // told as the machine made it (`decide`)
      case .keepSnapshot:
        work.snapshot = storage.withLock { ($0, generation == savedGeneration) }
      case .complete(let waiters, let outcome):
        for waiter in waiters { waiter.resume(outcome) }
      }
    }
    return step
  }

  /// Tells the machine that the value changed, unless a save that will see it is armed.
  ///
  /// NB: a relaxed load is enough. The lane clears the flag before it takes the value's lock to
  /// snapshot, and a mutation reads it after releasing that lock, so a mutation the snapshot
  /// missed always sees the flag cleared and tells the machine.
  @usableFromInline
  func didMutate() {
    if !saveIsArmed.load(ordering: .relaxed) { send(.mutated) }
  }

  /// Tells the machine that the stored data may have changed outside this reference.
  func outsideChange() { send(.outsideChange) }

  /// Whether the value changed since it was last saved (or read).
  func hasPendingChange() -> Bool {
    storage.withLock { _ in generation != savedGeneration }
  }

  // MARK: - Steps

  /// Performs `step` of the running job and returns its result.
  private func execute(_ step: Machine.Step) -> Machine.Event {
    switch step {
    case .checkPending:
      return .checked(pending: hasPendingChange())
    case .lock:
      return takeLock()
    case .read(let again):
      return readStored(again: again)
    case .reconcile(let adoptOnly, let force, let body, let waitsForRemoved):
      return .reconciled(
        reconcile(
          adoptOnly: adoptOnly, force: force, body: body,
          waitsForRemoved: waitsForRemoved))
    case .keepCopy:
      return keepConflictCopy()
    case .write:
      return writePlan()
    case .unlock:
      work.lock?.release()
      work.lock = nil
      return .unlocked
    case .restore:
      restoreSnapshot()
      return .restored
    case .quarantine:
      do {
        work.quarantined = try key.quarantineUnreadable(in: context)
        return .quarantined
      } catch {
        return .quarantineFailed(error)
      }
    case .saveToKey:
      return saveToKey()
    case .makeDurable:
      do {
        try (key as? any DurableKey)?.makeDurable(in: context)
        return .written
      } catch {
        return .writeFailed(.writeFailed(keyID: key.id, underlying: error))
      }
    case .readKey(let again):
      return readKey(again: again)
    case .keepUnsaved:
      keepUnsaved()
      return .keptUnsaved
    }
  }

  /// Keeps the pending change durably when its save was refused (see
  /// `FileStorageKey+Unsaved.swift`); a later save that writes it removes the copy.
  private func keepUnsaved() {
    guard let coordinated, hasPendingChange() else { return }
    let (value, base, changes) = storage.withLock { ($0, self.base, generation) }
    let reason = persistence.withLock { $0.saveError.map { "\($0)" } } ?? "the save was refused"
    // NB: a failure here is already told: the save error says the change was not saved.
    let fileSystem = context.fileSystem
    var keptBase = base
    var steps: [Value] = []
    var earlier: URL?
    if let kept = work.unsaved {
      if (try? fileSystem.identity(of: kept.url)) == kept.identity {
        // Still there, and nothing changed since: it holds this change already. A copy made
        // again would hold its own value as an earlier step, and push real ones out.
        if kept.generation == changes { return }
        // Still there: the new copy, made on the same base, takes its place, and holds the
        // earlier one's value as a step: another device may have merged that one already (its
        // removal not here yet), and a change of ours since (an element deleted) must then
        // still be a change.
        (earlier, keptBase) = (kept.url, kept.base)
        steps = Array((kept.steps + [kept.value]).suffix(UnsavedChange.stepLimit))
      } else {
        // Gone: a process that could read the file merged it and removed it (or a third took
        // its name since), so its value is in the file: nothing to keep when nothing changed
        // since. Else it is the new copy's base: a change of ours since (an element deleted)
        // is then a change, not what the file already had.
        if kept.generation == changes { return }
        keptBase = kept.value
      }
    }
    if let kept = try? coordinated.keepUnsavedChange(
      value, base: keptBase, steps: steps, reason: reason, superseding: earlier, in: context)
    {
      work.unsaved = (kept, try? fileSystem.identity(of: kept), value, keptBase, steps, changes)
    }
  }

  private func takeLock() -> Machine.Event {
    guard let coordinated else { return .locked }
    let askOnly = context.scheduler.asksLocksWithoutWaiting
    do {
      work.lock = try coordinated.lock(
        in: context, timeout: askOnly ? .zero : FileLock.defaultTimeout)
      return .locked
    } catch let error as FileSystemError where askOnly && error.reason.isLockTimeout {
      let seconds = Int(FileLock.defaultTimeout.components.seconds)
      let givingUp = FileSystemError(
        .lock, path: error.path, reason: .lockTimedOut(seconds: seconds))
      return .lockBusy(givingUp: .writeFailed(keyID: key.id, underlying: givingUp))
    } catch {
      return .lockFailed(.writeFailed(keyID: key.id, underlying: error))
    }
  }

  private func readStored(again: Bool) -> Machine.Event {
    guard let coordinated else { return .found(changed: false) }
    do {
      let change = try coordinated.storedChange(in: context, rereading: again)
      work.change = change
      if case .unchanged = change { return .found(changed: false) }
      return .found(changed: true)
    } catch {
      work.change = nil
      return .unreadable(SharedReference.loadError(error, key: key))
    }
  }

  /// Applies the machine's decision (``PersistenceMachine/decide(_:pending:canMerge:adoptOnly:)``)
  /// and a transaction's body under the value's lock, and plans the write.
  private func reconcile(
    adoptOnly: Bool, force: Bool, body token: UInt64?, waitsForRemoved: Bool = false
  ) -> Machine.Reconciled {
    let change = work.change ?? .unchanged
    work.change = nil
    let theirsKept = work.theirsKept
    work.theirsKept = false
    let body = token.flatMap { token in
      persistence.update(token) as? UpdateBody<Value>
    }
    let merge = coordinated?.merge
    var result = Machine.Reconciled()
    var adopted: FileIdentity??
    var changed = false
    var waitsForCopy = false
    storage.withLock { current in
      let pending = generation != savedGeneration
      let decision = Machine.decide(
        change.kind, pending: pending, canMerge: merge != nil, adoptOnly: adoptOnly)
      switch decision {
      case .nothing:
        break
      case .adopt where waitsForRemoved && change.kind == .deleted:
        result.awaitsReplacement = true
      case .adopt:
        if let (value, identity) = change.adopted(fallback: fallback) {
          current = value
          savedGeneration = generation
          if merge != nil { base = value }
          adopted = .some(identity)
          changed = true
        }
      case .saveNext:
        result.needsSave = true
      case .rewrite:
        result.conflict = .deletedElsewhere
        result.rewritesRemoved = true
      case .merge:
        if let merge, case .replaced(let theirs, let data, let identity) = change {
          let byField = coordinated?.mergeByField(
            base: base ?? fallback, ours: current, theirs: theirs)
          switch byField ?? .notApplicable {
          case .merged(let value, let conflicts, _):
            result.conflict = .merged(overlapping: conflicts)
            if conflicts.isEmpty || theirsKept {
              current = value
              changed = true
              base = theirs
              adopted = .some(identity)
            } else {
              // A field changed on both sides keeps ours, once theirs is kept beside the file;
              // the reconciliation runs again then (`theirsKept`), the body with it.
              work.copy = data
              work.change = change
              result.copy = true
              result.mergesOnceCopied = true
              waitsForCopy = true
            }
          case .keepBoth:
            work.copy = data
            result.copy = true
          case .notApplicable:
            let merged = merge.merge(base: base ?? fallback, ours: current, theirs: theirs)
            current = merged.value
            base = theirs
            adopted = .some(identity)
            changed = true
            result.conflict = .merged(overlapping: merged.conflicts)
          }
        }
      case .keepBoth:
        if case .replaced(_, let data, _) = change {
          work.copy = data
          result.copy = true
        }
      }
      guard !waitsForCopy else { return }
      if let body, body.run(&current) {
        generation &+= 1
        changed = true
      }
      // NB: a reload never writes (it holds no lock): a change pending meets theirs in the save
      // that follows (`needsSave`), or in its own coalesced save.
      guard !adoptOnly else { return }
      let due = generation != savedGeneration
      if due || (force && decision != .adopt) {
        result.write = true
        work.plan = (current, generation)
      }
    }
    if let adopted { coordinated?.remember(adopted) }
    if changed { notifyObserversAfterTheFact() }
    return result
  }

  private func keepConflictCopy() -> Machine.Event {
    guard let coordinated, let data = work.copy else {
      return .copied(URL(fileURLWithPath: "/"), pruned: [])
    }
    work.copy = nil
    do {
      // Theirs is kept durably before ours replaces it: a crash in between loses neither.
      let kept = try coordinated.keepConflictCopy(data, in: context)
      work.theirsKept = work.change != nil
      return .copied(kept.url, pruned: kept.pruned)
    } catch {
      work.change = nil
      work.plan = nil
      return .writeFailed(.writeFailed(keyID: key.id, underlying: error))
    }
  }

  private func writePlan() -> Machine.Event {
    guard let coordinated, let plan = work.plan else { return .written }
    work.plan = nil
    do {
      try coordinated.write(plan.value, in: context)
    } catch let error as FileSystemError where error.reason == .replacedMeanwhile {
      return .writeRaced(givingUp: .writeFailed(keyID: key.id, underlying: error))
    } catch {
      return .writeFailed(.writeFailed(keyID: key.id, underlying: error))
    }
    storage.withLock { _ in
      savedGeneration = max(savedGeneration, plan.generation)
      if coordinated.merge != nil { base = plan.value }
    }
    if let unsaved = work.unsaved {
      // The change kept when its save was refused is in the file now; the copy goes, unless
      // it is no longer this reference's (merged and removed by another process, and its name
      // taken by another's copy since).
      if (try? context.fileSystem.identity(of: unsaved.url)) == unsaved.identity {
        try? context.fileSystem.removeItem(at: unsaved.url)
      }
      work.unsaved = nil
    }
    return .written
  }

  /// Puts back the value a transaction began with; what it changed is not saved (invariant 2).
  ///
  /// The value is as saved as it was then: a change made while the transaction started, after
  /// its write, stays pending (invariant 1; found by the `simulation` campaign).
  private func restoreSnapshot() {
    guard let snapshot = work.snapshot else { return }
    work.snapshot = nil
    storage.withLock { current in
      current = snapshot.value
      generation &+= 1
      if snapshot.saved { savedGeneration = generation }
    }
    notifyObserversAfterTheFact()
  }

  static func loadError(_ error: any Error, key: any SharedKey<Value>) -> SharedLoadError {
    if let error = error as? SharedLoadError { return error }
    return SharedLoadError(keyID: key.id, underlying: error)
  }
}

extension SharedSaveError {
  /// Whether the save failed because the file's folder was removed.
  var isFolderRemoved: Bool {
    guard case .writeFailed(_, let underlying as FileSystemError) = self else { return false }
    return underlying.reason == .folderRemoved
  }
}

extension FileSystemError.Reason {
  var isLockTimeout: Bool {
    if case .lockTimedOut = self { return true }
    return false
  }
}

extension StoredChange {
  /// The change's shape, for the machine's decisions.
  var kind: PersistenceMachine.ChangeKind {
    switch self {
    case .unchanged: .unchanged
    case .deleted: .deleted
    case .replaced: .replaced
    }
  }
}
