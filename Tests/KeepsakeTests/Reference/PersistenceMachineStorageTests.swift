import Foundation
import Testing

@testable import Keepsake

/// The steps the machine takes for each kind of storage, told only by what the storage does
/// (``PersistenceMachine/Storage``): shared with other writers, saved on mutation, made durable
/// by a later step.
@Suite("The persistence machine, by what its storage does")
struct PersistenceMachineStorageTests {
  typealias Machine = PersistenceMachine
  typealias Support = PersistenceMachineTests

  static func machine(_ storage: Machine.Storage) -> Machine {
    Machine(
      storage: storage, interval: .milliseconds(500), lockTimeout: .seconds(30), loadError: nil,
      isLoading: false)
  }

  static func savesInline(_ effects: [Machine.Effect]) -> Bool {
    effects.contains { if case .saveInline = $0 { true } else { false } }
  }

  static func armsTheSave(_ effects: [Machine.Effect]) -> Bool {
    effects.contains { if case .arm(.save, _) = $0 { true } else { false } }
  }

  @Test(
    "A store that writes in the background takes each change at once, acknowledged once durable")
  func backgroundStore() {
    var machine = Self.machine(.backgroundStore)
    let mutated = Support.send(&machine, .mutated)
    #expect(Self.savesInline(mutated))
    #expect(!Self.armsTheSave(mutated), "no coalescing timer")
    #expect(Support.step(Support.send(&machine, .savedInline(nil))) == .makeDurable)
    #expect(machine.phase == .saving, "not acknowledged before it is durable")
    Support.send(&machine, .written)
    #expect(machine.phase == .clean)
  }

  @Test(
    "A save of a store that writes in the background makesDurableLater even with nothing pending")
  func backgroundStoreSaveSynchronizes() {
    var machine = Self.machine(.backgroundStore)
    let caller = PersistenceMachineTests.Caller()
    let save = Support.send(
      &machine, .request(.save(force: false), caller.waiter, insideTransaction: false))
    #expect(Support.step(save) == .checkPending)
    #expect(Support.step(Support.send(&machine, .checked(pending: false))) == .makeDurable)
    #expect(!caller.ended)
    Support.send(&machine, .written)
    #expect(caller.ended && !caller.failed)
  }

  @Test("A store whose write failed is asked again when its key changes outside, not before")
  func backgroundStoreAskedAgainAfterAFailedWrite() {
    var machine = Self.machine(.backgroundStore)
    Support.send(&machine, .mutated, .savedInline(nil))
    let failed = SharedSaveError.writeFailed(
      keyID: SharedKeyID(kind: "appStorage", name: "theme"),
      underlying: FileSystemError(.read, path: "/suite.json", reason: .ioError))
    Support.send(&machine, .writeFailed(failed))
    #expect(machine.saveError != nil)

    #expect(Support.step(Support.send(&machine, .outsideChange)) == .readKey(again: false))
    Support.send(&machine, .found(changed: false))
    #expect(Support.step(Support.send(&machine, .reconciled(.init()))) == .makeDurable)
    Support.send(&machine, .written)
    #expect(machine.saveError == nil, "the store wrote the change meanwhile")
    #expect(machine.phase == .clean)

    Support.send(&machine, .outsideChange, .found(changed: false))
    #expect(
      Support.step(Support.send(&machine, .reconciled(.init()))) == nil,
      "with no error, a reload does not ask the store")
  }

  @Test("A key of the app's own saves on the lane after the interval, through the key, unlocked")
  func ownKeyOnTheLane() {
    var machine = Self.machine(.ownKey(inline: false))
    #expect(Self.armsTheSave(Support.send(&machine, .mutated)))
    #expect(Support.step(Support.send(&machine, .timerFired(.save))) == .checkPending)
    #expect(Support.step(Support.send(&machine, .checked(pending: true))) == .saveToKey)
    #expect(Support.step(Support.send(&machine, .written)) == nil, "nothing to make durable")
    #expect(machine.phase == .clean)
  }

  @Test("A key of the app's own that saves at once needs no job after its save")
  func ownKeyInline() {
    var machine = Self.machine(.ownKey(inline: true))
    #expect(Self.savesInline(Support.send(&machine, .mutated)))
    Support.send(&machine, .savedInline(.protected(Support.loadError)))
    #expect(machine.saveError != nil, "a failed save shows")
    #expect(Self.savesInline(Support.send(&machine, .mutated)))
    #expect(Support.step(Support.send(&machine, .savedInline(nil))) == nil)
    #expect(machine.saveError == nil, "the next save that succeeds clears it at once")
    #expect(machine.phase == .clean)
  }

  @Test(
    "Only storage shared with other writers is locked, read and written in transactions",
    arguments: [
      (Machine.Storage.sharedFile, true), (.backgroundStore, false),
      (.ownKey(inline: false), false),
      (.ownKey(inline: true), false),
    ])
  func transactionsAndReads(_ storage: Machine.Storage, shared: Bool) {
    var machine = Self.machine(storage)
    let caller = PersistenceMachineTests.Caller()
    let begin = Support.send(&machine, .request(.begin, caller.waiter, insideTransaction: false))
    if shared {
      #expect(Support.step(begin) == .lock)
      #expect(!caller.ended)
    } else {
      #expect(Support.step(begin) == nil)
      #expect(caller.ended && !caller.failed, "a body runs directly")
    }
    var reloading = Self.machine(storage)
    let reload = Support.send(&reloading, .outsideChange)
    #expect(Support.step(reload) == (shared ? .read(again: false) : .readKey(again: false)))
  }
}
