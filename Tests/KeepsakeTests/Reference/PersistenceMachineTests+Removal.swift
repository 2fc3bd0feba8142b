import Foundation
import Testing

@testable import Keepsake

// A file found removed: what the machine waits for, and when it takes the removal in.
extension PersistenceMachineTests {
  /// Whether `effects` arm the grace of a removed file.
  static func armsGrace(_ effects: [Machine.Effect]) -> Bool {
    effects.contains {
      if case .arm(.replacementGrace, _) = $0 { return true }
      return false
    }
  }

  @Test("A save asked for with nothing pending leaves a removed file to the grace")
  func requestedSaveLeavesRemovalToTheGrace() {
    var machine = Self.file()
    let caller = Caller()
    let started = Self.send(
      &machine, .request(.save(force: true), caller.waiter, insideTransaction: false))
    #expect(Self.step(started) == .lock)
    Self.send(&machine, .locked)
    let found = Self.send(&machine, .found(changed: true))
    #expect(
      Self.step(found)
        == .reconcile(adoptOnly: false, force: true, body: nil, waitsForRemoved: true))
    // The name is empty and nothing of ours is pending: the save writes nothing, and the grace
    // starts, as a reload's would.
    let waiting = Self.send(&machine, .reconciled(.init(awaitsReplacement: true)))
    #expect(Self.step(waiting) == .unlock)
    #expect(Self.armsGrace(waiting))
    Self.send(&machine, .unlocked)
    #expect(caller.ended && !caller.failed)
    // A change made now waits for the grace: its coalesced save starts nothing.
    Self.send(&machine, .mutated)
    #expect(Self.step(Self.send(&machine, .timerFired(.save))) == nil)
    #expect(machine.phase == .pending)
  }

  @Test("load() leaves a removed file to the grace, as a reload does")
  func loadLeavesRemovalToTheGrace() {
    var machine = Self.file()
    let caller = Caller()
    Self.send(&machine, .request(.load, caller.waiter, insideTransaction: false))
    let found = Self.send(&machine, .found(changed: true))
    #expect(
      Self.step(found)
        == .reconcile(adoptOnly: true, force: false, body: nil, waitsForRemoved: true))
    let waiting = Self.send(&machine, .reconciled(.init(awaitsReplacement: true)))
    #expect(caller.ended && !caller.failed)
    #expect(Self.armsGrace(waiting))
    // A change made now waits for the grace: its coalesced save starts nothing.
    Self.send(&machine, .mutated)
    #expect(Self.step(Self.send(&machine, .timerFired(.save))) == nil)
    #expect(machine.phase == .pending)
  }

  @Test("A file removed with nothing pending is taken in only once the grace is over")
  func removalWaitsForTheGrace() {
    var machine = Self.file()
    #expect(Self.step(Self.send(&machine, .outsideChange)) == .read(again: false))
    Self.send(&machine, .found(changed: true))
    let waiting = Self.send(&machine, .reconciled(.init(awaitsReplacement: true)))
    #expect(machine.job == nil)
    #expect(machine.phase == .pending, "the grace counts as work under way")
    #expect(Self.armsGrace(waiting))
    // The grace ends: the file is read again, and what is found (still nothing) is taken in.
    let reread = Self.send(&machine, .timerFired(.replacementGrace))
    #expect(Self.step(reread) == .read(again: false))
    let found = Self.send(&machine, .found(changed: true))
    #expect(Self.step(found) == .reconcile(adoptOnly: true, force: false, body: nil))
    // Then a save looks for a change the grace held back: none.
    let check = Self.send(&machine, .reconciled(.init()))
    #expect(Self.step(check) == .checkPending)
    Self.send(&machine, .checked(pending: false))
    #expect(machine.phase == .clean)
  }
}
