import Foundation
import Synchronization
import Testing

@testable import Keepsake

/// The persistence state machine's decisions, event by event, with no I/O: the rules of
/// `PersistenceMachine` as its states and transitions state them (the Data safety article's
/// "The persistence of a reference").
@Suite("Persistence state machine")
struct PersistenceMachineTests {
  typealias Machine = PersistenceMachine

  /// A caller that records how its job ended.
  final class Caller: Sendable {
    let outcomes = Mutex<[Result<Void, any Error>]>([])
    var waiter: Machine.Waiter {
      Machine.Waiter { [self] outcome in outcomes.withLock { $0.append(outcome) } }
    }
    var ended: Bool { outcomes.withLock { !$0.isEmpty } }
    var failed: Bool {
      outcomes.withLock { outcomes in
        outcomes.contains { if case .failure = $0 { true } else { false } }
      }
    }
  }

  static let loadError = SharedLoadError(
    keyID: SharedKeyID(kind: "file", name: "/notes.json"), underlying: FileContentError.empty)

  static func file(loadError: SharedLoadError? = nil) -> Machine {
    Machine(
      storage: .sharedFile, interval: .milliseconds(500), lockTimeout: .seconds(30),
      loadError: loadError, isLoading: false)
  }

  /// The step the effects run, if any.
  static func step(_ effects: [Machine.Effect]) -> Machine.Step? {
    for case .run(let step) in effects { return step }
    return nil
  }

  /// Sends `events` in order, telling waiters as the effects say, and returns the effects of
  /// the last one.
  @discardableResult
  static func send(_ machine: inout Machine, _ events: Machine.Event...) -> [Machine.Effect] {
    var effects: [Machine.Effect] = []
    for event in events {
      effects = machine.handle(event, now: .zero)
      tellWaiters(effects)
    }
    return effects
  }

  static func tellWaiters(_ effects: [Machine.Effect]) {
    for case .complete(let waiters, let outcome) in effects {
      for waiter in waiters { waiter.resume(outcome) }
    }
  }

  /// Runs the save steps of a file key through a clean, unchanged file: lock, read, reconcile,
  /// write, unlock.
  static func completeSave(_ machine: inout Machine) {
    send(&machine, .checked(pending: true), .locked, .found(changed: false))
    send(&machine, .reconciled(.init(write: true)), .written, .unlocked)
  }

  // MARK: - The decision table

  @Test(
    "No row of the reconciliation table drops a pending change",
    arguments: [Machine.ChangeKind.unchanged, .deleted, .replaced], [true, false])
  func noRowDropsAPendingChange(_ change: Machine.ChangeKind, canMerge: Bool) {
    for adoptOnly in [true, false] {
      let decision = Machine.decide(change, pending: true, canMerge: canMerge, adoptOnly: adoptOnly)
      #expect(decision != .adopt, "\(change), merging \(canMerge), reload \(adoptOnly)")
    }
  }

  @Test(
    "The reconciliation table, row by row",
    arguments: [
      (Machine.ChangeKind.unchanged, false, true, false, Machine.Decision.nothing),
      (.unchanged, true, true, false, .nothing),
      (.replaced, false, true, false, .adopt),
      (.deleted, false, true, true, .adopt),
      (.replaced, true, true, true, .saveNext),
      (.deleted, true, false, true, .saveNext),
      (.replaced, true, true, false, .merge),
      (.replaced, true, false, false, .keepBoth),
      (.deleted, true, true, false, .rewrite),
    ])
  func decisionTable(
    _ change: Machine.ChangeKind, pending: Bool, canMerge: Bool, adoptOnly: Bool,
    expected: Machine.Decision
  ) {
    #expect(
      Machine.decide(change, pending: pending, canMerge: canMerge, adoptOnly: adoptOnly)
        == expected)
  }

  // MARK: - Coalesced saves

  @Test("A mutation arms the save timer once; the timer starts a save that checks for a change")
  func mutationArmsTheTimer() {
    var machine = Self.file()
    let first = Self.send(&machine, .mutated)
    #expect(machine.phase == .pending)
    #expect(
      first.contains { if case .arm(.save, after: .milliseconds(500)) = $0 { true } else { false } }
    )
    #expect(Self.send(&machine, .mutated).isEmpty, "a second mutation changes nothing")
    let fired = Self.send(&machine, .timerFired(.save))
    #expect(Self.step(fired) == .checkPending)
    #expect(machine.phase == .saving)
  }

  @Test("A save locks, reads, reconciles, writes and unlocks, in that order")
  func saveSteps() {
    var machine = Self.file()
    Self.send(&machine, .mutated, .timerFired(.save))
    #expect(Self.step(Self.send(&machine, .checked(pending: true))) == .lock)
    #expect(Self.step(Self.send(&machine, .locked)) == .read(again: false))
    #expect(
      Self.step(Self.send(&machine, .found(changed: false)))
        == .reconcile(adoptOnly: false, force: false, body: nil, waitsForRemoved: true))
    #expect(Self.step(Self.send(&machine, .reconciled(.init(write: true)))) == .write)
    #expect(Self.step(Self.send(&machine, .written)) == .unlock)
    Self.send(&machine, .unlocked)
    #expect(machine.phase == .clean)
  }

  @Test("A merge that waits for theirs to be kept reconciles again once the copy is on disk")
  func mergeWaitsForTheCopy() {
    var machine = Self.file()
    Self.send(&machine, .mutated, .timerFired(.save), .checked(pending: true), .locked)
    Self.send(&machine, .found(changed: true))
    let waiting = Machine.Reconciled(
      copy: true, conflict: .merged(overlapping: ["title"]), mergesOnceCopied: true)
    #expect(Self.step(Self.send(&machine, .reconciled(waiting))) == .keepCopy)
    let copy = URL(fileURLWithPath: "/notes.conflict.json")
    #expect(
      Self.step(Self.send(&machine, .copied(copy, pruned: [])))
        == .reconcile(adoptOnly: false, force: false, body: nil, waitsForRemoved: true),
      "the merge takes theirs in only now, the copy safe")
    #expect(Self.step(Self.send(&machine, .reconciled(.init(write: true)))) == .write)
    Self.send(&machine, .written, .unlocked)
    #expect(machine.lastConflict?.copy == copy, "the app hears where theirs was kept")

    // A copy kept for a whole other version (no merge waits for it) is followed by the write.
    Self.send(&machine, .mutated, .timerFired(.save), .checked(pending: true), .locked)
    Self.send(&machine, .found(changed: true))
    #expect(
      Self.step(Self.send(&machine, .reconciled(.init(copy: true, write: true)))) == .keepCopy)
    #expect(Self.step(Self.send(&machine, .copied(copy, pruned: []))) == .write)
  }

  @Test("What arrives during a job waits for it, and is served in order")
  func requestsQueueBehindAJob() {
    var machine = Self.file()
    let flush = Caller()
    let load = Caller()
    Self.send(&machine, .mutated, .timerFired(.save), .checked(pending: true))
    #expect(
      Self.send(&machine, .request(.save(force: false), flush.waiter, insideTransaction: false))
        .isEmpty)
    #expect(Self.send(&machine, .request(.load, load.waiter, insideTransaction: false)).isEmpty)
    #expect(Self.send(&machine, .outsideChange).isEmpty)
    Self.send(&machine, .locked, .found(changed: false), .reconciled(.init(write: true)), .written)
    let next = Self.send(&machine, .unlocked)
    #expect(Self.step(next) == .checkPending, "the flush, first in line")
    Self.send(&machine, .checked(pending: false))
    #expect(flush.ended && !load.ended)
    #expect(machine.job?.step == .read(again: true), "then the load")
  }

  // MARK: - Invariant 1: a pending change is never dropped

  @Test("Stored data readable again while a change is pending is saved through the merge")
  func readableAgainWithPendingChangeSaves() {
    var machine = Self.file(loadError: Self.loadError)
    #expect(machine.phase == .protected)
    Self.send(&machine, .mutated)
    #expect(machine.saveError != nil, "the change stays pending, and the app is told")
    #expect(Self.step(Self.send(&machine, .outsideChange)) == .read(again: false))
    let found = Self.send(&machine, .found(changed: true))
    #expect(machine.loadError == nil)
    #expect(
      Self.step(found)
        == .reconcile(adoptOnly: true, force: false, body: nil, waitsForRemoved: true),
      "a reload waits for a removed file to come back")
    let reconciled = Self.send(&machine, .reconciled(.init(needsSave: true)))
    #expect(Self.step(reconciled) == .lock, "the reload goes on as a save, under the lock")
    Self.send(&machine, .locked, .found(changed: true))
    #expect(
      machine.job?.step
        == .reconcile(adoptOnly: false, force: false, body: nil, waitsForRemoved: true))
  }

  @Test("A save that finds the data unreadable protects it and writes nothing")
  func unreadableAtSaveProtects() {
    var machine = Self.file()
    let caller = Caller()
    Self.send(
      &machine, .mutated, .request(.save(force: false), caller.waiter, insideTransaction: false))
    Self.send(&machine, .timerFired(.save), .checked(pending: true), .locked)
    let effects = Self.send(&machine, .unreadable(Self.loadError))
    #expect(Self.step(effects) == .keepUnsaved, "the change is kept beside it: no write step")
    #expect(Self.step(Self.send(&machine, .keptUnsaved)) == .unlock)
    Self.send(&machine, .unlocked)
    #expect(caller.failed)
    #expect(machine.loadError != nil, "protected from now on")
    guard case .protected = machine.saveError else {
      Issue.record("saveError is \(String(describing: machine.saveError))")
      return
    }
  }

  // MARK: - Invariant 2: transactions are all or nothing

  /// A machine inside an open transaction.
  static func inTransaction() -> Machine {
    var machine = Self.file()
    let caller = Caller()
    Self.send(&machine, .request(.begin, caller.waiter, insideTransaction: false))
    Self.send(&machine, .locked, .found(changed: false), .reconciled(.init()))
    return machine
  }

  @Test("An open transaction keeps its lock, and nothing it changes is written before its end")
  func transactionWritesNothingUntilItsEnd() {
    var machine = Self.inTransaction()
    #expect(machine.phase == .inTransaction)
    #expect(Self.send(&machine, .mutated).isEmpty, "no timer inside a transaction")
    #expect(Self.send(&machine, .timerFired(.save)).isEmpty, "a timer armed before waits")
    #expect(Self.send(&machine, .outsideChange).isEmpty, "a reload waits")
    let inside = Caller()
    let effects = Self.send(
      &machine, .request(.save(force: false), inside.waiter, insideTransaction: true))
    #expect(Self.step(effects) == nil && inside.ended, "a flush inside is part of it: no job")
    #expect(
      Self.send(&machine, .exiting).isEmpty, "the exit flush abandons it rather than half write it")
    let outside = Caller()
    #expect(
      Self.send(&machine, .request(.save(force: false), outside.waiter, insideTransaction: false))
        .isEmpty)
    #expect(!outside.ended, "a save from outside waits for the end")
  }

  @Test("A transaction whose body threw restores its value and writes nothing")
  func rollbackRestores() {
    var machine = Self.inTransaction()
    let caller = Caller()
    let effects = Self.send(&machine, .request(.rollback, caller.waiter, insideTransaction: false))
    #expect(Self.step(effects) == .restore)
    #expect(Self.step(Self.send(&machine, .restored)) == .unlock)
    let after = Self.send(&machine, .unlocked)
    #expect(caller.ended && !caller.failed)
    // A change made while the transaction started is restored unsaved (found by the
    // simulation campaign): a save follows, and finds it.
    #expect(Self.step(after) == .checkPending)
    Self.send(&machine, .checked(pending: false))
    #expect(machine.phase == .clean)
  }

  @Test("A load that finds the data readable again saves the change made meanwhile")
  func loadThatClearsProtectionSaves() {
    // Found by the simulation campaign: the file unreadable at launch, a change, the file
    // deleted, `load()`: protection cleared, and nothing ever saved the change.
    var machine = Self.file(loadError: Self.loadError)
    Self.send(&machine, .mutated)
    let caller = Caller()
    Self.send(&machine, .request(.load, caller.waiter, insideTransaction: false))
    Self.send(&machine, .found(changed: false))
    #expect(machine.loadError == nil)
    let after = Self.send(&machine, .reconciled(.init()))
    #expect(caller.ended && !caller.failed)
    #expect(Self.step(after) == .checkPending, "a save follows, and finds the change")
  }

  @Test("A committed transaction is written before its lock is released; what waited runs after")
  func commitWritesThenServesWhatWaited() {
    var machine = Self.inTransaction()
    Self.send(&machine, .outsideChange)
    let caller = Caller()
    #expect(
      Self.step(Self.send(&machine, .request(.commit, caller.waiter, insideTransaction: false)))
        == .read(again: false))
    Self.send(&machine, .found(changed: false))
    #expect(Self.step(Self.send(&machine, .reconciled(.init(write: true)))) == .write)
    #expect(Self.step(Self.send(&machine, .written)) == .unlock)
    let after = Self.send(&machine, .unlocked)
    #expect(caller.ended && !caller.failed)
    #expect(Self.step(after) == .read(again: false), "the deferred reload")
  }

  @Test("A transaction's end runs inside it, alone; a request made meanwhile runs after its unlock")
  func transactionEndRunsAlone() {
    var machine = Self.inTransaction()
    let ending = Caller()
    Self.send(&machine, .request(.commit, ending.waiter, insideTransaction: false))
    #expect(machine.phase == .inTransaction, "its end runs inside the transaction")
    let waiting = Caller()
    #expect(
      Self.send(&machine, .request(.save(force: true), waiting.waiter, insideTransaction: false))
        .isEmpty, "nothing else starts while it runs")
    Self.send(&machine, .found(changed: false), .reconciled(.init(write: true)), .written)
    #expect(machine.phase == .inTransaction, "until its lock is released")
    let after = Self.send(&machine, .unlocked)
    #expect(ending.ended && !ending.failed && !waiting.ended)
    #expect(Self.step(after) == .lock, "then the save that waited starts")
    #expect(machine.phase == .saving)
  }

  // MARK: - Locks and time

  @Test("A busy lock is asked for again on the clock, and fails at the lock timeout")
  func busyLockRetriesThenFails() {
    var machine = Self.file()
    let caller = Caller()
    Self.send(
      &machine, .mutated, .request(.save(force: true), caller.waiter, insideTransaction: false))
    let givingUp = SharedSaveError.writeFailed(
      keyID: SharedKeyID(kind: "file", name: "/notes.json"),
      underlying: FileSystemError(
        .lock, path: "/notes.json.lock", reason: .lockTimedOut(seconds: 30)))
    let busy = machine.handle(.lockBusy(givingUp: givingUp), now: .seconds(1))
    Self.tellWaiters(busy)
    #expect(busy.contains { if case .arm(.lockRetry, _) = $0 { true } else { false } })
    #expect(Self.step(machine.handle(.timerFired(.lockRetry), now: .seconds(2))) == .lock)
    Self.tellWaiters(machine.handle(.lockBusy(givingUp: givingUp), now: .seconds(31)))
    #expect(caller.failed)
    #expect(machine.saveError != nil)
    #expect(machine.phase == .pending, "the change stays pending for the next save")
  }
}
