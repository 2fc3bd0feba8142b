import Foundation
import Testing

@testable import Keepsake

@Suite("Overwritten saves and plain JSON files")
struct SyncSavesAndPlainFilesTests {
  let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
  let start = [Note(id: 1, text: "milk"), Note(id: 2, text: "bread"), Note(id: 3, text: "eggs")]

  @Test("A save another device's version replaced without including it is merged back")
  func overwrittenSaveRestored() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(start + [Note(id: 4, text: "tea")])
    // The engine put Bob's version in place without a copy (a race, or no conflict copies).
    let bob = try devices.theirs(
      [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")], over: shared)
    devices.here.put(bob, as: "notes.json")
    devices.merge()
    #expect(try devices.stored().texts == [1: "milk", 2: "rye bread", 4: "tea"])
    // Taken back once: the next scan finds it included.
    let merged = devices.here.bytes("notes.json")
    devices.merge()
    #expect(devices.here.bytes("notes.json") == merged)
  }

  @Test(
    "A save that waits for a base it shares with the version that went over it is merged back, however many saves came after"
  )
  func overwrittenSaveWaitingOutlivesLaterSaves() throws {
    let devices = TwoDevices(baseWait: .milliseconds(20))
    try saveWaitingForABaseItLacks(devices)
    #expect(try devices.stored().texts[7] == nil, "the save waits")
    // Another process of this device, whose own wait is longer, saves over the file
    // meanwhile, more often than the device keeps saves.
    let process = FileStorageKey<[Note]>.notes(devices.here.notesURL)
    for id in 100..<(100 + BaseStore.keptOwn + 1) {
      let notes = try #require(try process.load(in: devices.here.context))
      try process.save(notes + [Note(id: id, text: "note \(id)")], in: devices.here.context)
      waitForRecords()
    }
    #expect(try devices.stored().texts[7] == nil, "the save waits")
    // NB: a wait of at least the first key's, which only makes it over.
    Thread.sleep(forTimeInterval: 0.05)
    devices.merge()
    let texts = try devices.stored().texts
    #expect(texts[7] == "tea", "the save is merged back once the wait is over")
    #expect(texts[6] == "figs" && texts[8] == "rye" && texts[100] == "note 100")
  }

  @Test(
    "A save waiting for a base is merged back by the next launch of the app, however many saves came between"
  )
  func overwrittenSaveWaitingOutlivesTheProcess() throws {
    let devices = TwoDevices(baseWait: .milliseconds(20))
    let saved = try saveWaitingForABaseItLacks(devices)
    // The app quits while the save waits; another process of the device saves over the file,
    // more often than the device keeps saves, before it is started again.
    let process = FileStorageKey<[Note]>.notes(devices.here.notesURL)
    for id in 100..<(100 + BaseStore.keptOwn + 1) {
      let notes = try #require(try process.load(in: devices.here.context))
      try process.save(notes + [Note(id: id, text: "note \(id)")], in: devices.here.context)
      waitForRecords()
    }
    let relaunched = FileStorageKey<[Note]>.notes(
      devices.here.notesURL, baseWait: .milliseconds(20))
    relaunched.mergeConflictCopies(in: devices.here.context)
    #expect(try devices.stored().texts[7] == nil, "the save waits again, from its launch")
    // NB: a wait of at least the key's, which only makes it over.
    Thread.sleep(forTimeInterval: 0.05)
    relaunched.mergeConflictCopies(in: devices.here.context)
    waitForRecords()
    let texts = try devices.stored().texts
    #expect(texts[7] == "tea", "the save is merged back once the wait is over")
    #expect(texts[6] == "figs" && texts[8] == "rye" && texts[100] == "note 100")
    let store = relaunched.syncTarget.store(in: devices.here.context)
    #expect(
      !store.ownSaves(of: devices.here.notesURL).waiting.contains(FileVersion.hash(of: saved)),
      "merged back, it no longer waits")
  }

  @Test("A save waiting for its base stops waiting once another device's merge includes it")
  func overwrittenSaveWaitingEndsWhenIncluded() throws {
    let devices = TwoDevices()
    let saved = try saveWaitingForABaseItLacks(devices)
    let name = SyncResolver<[Note]>.name(ofSave: FileVersion.hash(of: saved))
    #expect(devices.key.sync.state.isWaiting(for: name))
    // Bob got the save before his version went over it, and merged the two himself.
    let jam = start + [Note(id: 5, text: "jam")]
    let merged = try devices.theirs(
      jam + [Note(id: 6, text: "figs"), Note(id: 7, text: "tea"), Note(id: 8, text: "rye")],
      over: saved)
    devices.here.put(merged, as: "notes.json")
    devices.merge()
    #expect(!devices.key.sync.state.isWaiting(for: name))
    #expect(devices.here.bytes("notes.json") == merged, "nothing merged a second time")
  }

  /// Makes a save (tea) whose merge back waits for a base this device never held, and returns it.
  ///
  /// The save is made on Carol's merge of Bob's first version (jam, with her figs), then goes
  /// under Bob's next version (rye), made on his first alone: their newest common version is
  /// Bob's first.
  @discardableResult
  private func saveWaitingForABaseItLacks(_ devices: TwoDevices) throws -> Data {
    let shared = try devices.save(start)
    let jam = start + [Note(id: 5, text: "jam")]
    let bob = try devices.theirs(jam, over: shared)
    let carol = try devices.theirs(
      jam + [Note(id: 6, text: "figs")], over: bob, device: "CAROLLL")
    devices.here.put(carol, as: "notes.json")
    _ = try devices.key.load(in: devices.here.context)
    let saved = try devices.save(jam + [Note(id: 6, text: "figs"), Note(id: 7, text: "tea")])
    devices.here.put(
      try devices.theirs(jam + [Note(id: 8, text: "rye")], over: bob), as: "notes.json")
    devices.merge()
    return saved
  }

  @Test("A save is merged back even when the merge comes before the busy sync queue kept it")
  func overwrittenSaveRestoredBeforeItsRecord() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try whileSyncQueueIsHeld {
      try devices.key.save(start + [Note(id: 4, text: "tea")], in: devices.here.context)
      let bob = try devices.theirs(
        [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")], over: shared)
      devices.here.put(bob, as: "notes.json")
      _ = devices.key.mergeConflictCopies(in: devices.here.context)
      #expect(try devices.stored().texts == [1: "milk", 2: "rye bread", 4: "tea"])
    }
  }

  @Test(
    "A save into a name the engine emptied descends from the version the key knew, and is merged back when the engine's rename goes over it"
  )
  func saveIntoEmptiedNameRestored() throws {
    let devices = TwoDevices()
    let shared = try savedThenRemoved(devices)
    // A save of the value made on the version read came in between (its two-second wait for
    // the file had passed).
    let saved = try devices.save(start + [Note(id: 4, text: "tea")])
    let parent = FileVersion(shared, readsAncestry: true)
    #expect(FileVersion(saved, readsAncestry: true).ancestry?.versions.first == parent.entry)
    // The rename goes over it.
    let bob = try devices.theirs(
      [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")], over: shared)
    devices.here.put(bob, as: "notes.json")
    devices.merge()
    #expect(try devices.stored().texts == [1: "milk", 2: "rye bread", 4: "tea"])
  }

  @Test(
    "A save into an emptied name never descends from a version a kept change's take-in wrote beside the value"
  )
  func saveIntoEmptiedNameAfterTakeIn() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    // An older version of the app kept its change (note 5) beside the file; the take-in, on the
    // sync queue, writes it into the file before the value has taken that file in.
    let change = try UnsavedChange.encoder.encode(
      UnsavedChange(
        reason: "refused", change: try NotesFormat.encode(start + [Note(id: 5, text: "jam")]),
        base: try NotesFormat.encode(start)))
    devices.here.put(change, as: "notes.unsaved-20261206T120000Z.json")
    devices.key.takeInKeptChanges(in: devices.here.context)
    waitForRecords()
    let tookIn = try #require(devices.here.bytes("notes.json"))
    #expect(try devices.stored().texts[5] == "jam")
    // The engine removed the file to rename Bob's version in (he had the take-in's); the value,
    // made on the version before the take-in, is saved into the empty name.
    try devices.here.disk.removeItem(at: devices.here.notesURL)
    let saved = try devices.save(start + [Note(id: 4, text: "tea")])
    #expect(
      FileVersion(saved, readsAncestry: true).ancestry?.versions.first
        == FileVersion(shared, readsAncestry: true).entry)
    let bob = try devices.theirs(
      [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread"), Note(id: 5, text: "jam")],
      over: tookIn)
    devices.here.put(bob, as: "notes.json")
    devices.merge()
    #expect(
      try devices.stored().texts == [1: "milk", 2: "rye bread", 4: "tea", 5: "jam"],
      "the kept change's note stays, and the save is merged back")
  }

  @Test(
    "A save of a value made after a load found no file has no parent: it never deletes what the engine's rename brings"
  )
  func saveMadeOnNoFileNotMergedBack() throws {
    let devices = TwoDevices()
    let shared = try savedThenRemoved(devices)
    // The app loads in the gap, finds no file, and starts over from nothing.
    #expect(try devices.key.load(in: devices.here.context) == nil)
    let saved = try devices.save([Note(id: 4, text: "tea")])
    #expect(FileVersion(saved, readsAncestry: true).ancestry?.versions == [])
    let bob = try devices.theirs(
      [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")], over: shared)
    devices.here.put(bob, as: "notes.json")
    devices.merge()
    #expect(try devices.stored().texts == [1: "milk", 2: "rye bread"], "nothing of Bob's deleted")
  }

  @Test(
    "A reference's save after it took in the file's removal has no parent; one during the grace descends from what it knew"
  )
  func referenceSavesAroundARemoval() async throws {
    for takesInRemoval in [true, false] {
      let devices = TwoDevices()
      let shared = try devices.save(start)
      let clock = StorageClock.manual()
      let context = StorageContext.inMemory(
        name: "app", fileSystem: devices.here.disk, clock: clock)
      let notes = StorageContext.withValue(context) {
        Shared(devices.key, default: [Note]())
      }
      #expect(notes.wrappedValue == start)
      // The engine removed the file; the reference sees it at once (its watch).
      devices.here.disk.setContents(nil, at: devices.here.notesURL)
      await clock.advance(
        by: takesInRemoval ? PersistenceMachine.replacementGrace : .milliseconds(100))
      #expect(notes.wrappedValue.isEmpty == takesInRemoval)
      notes.withLock { $0.append(Note(id: 4, text: "tea")) }
      try await notes.save()
      waitForRecords()
      let saved = try #require(devices.here.bytes("notes.json"))
      let parent = FileVersion(shared, readsAncestry: true)
      #expect(
        FileVersion(saved, readsAncestry: true).ancestry?.versions.first
          == (takesInRemoval ? nil : parent.entry))
      // The engine's rename goes over it.
      let bob = try devices.theirs(
        [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")], over: shared)
      devices.here.put(bob, as: "notes.json")
      devices.merge()
      #expect(
        try devices.stored().texts
          == (takesInRemoval
            ? [1: "milk", 2: "rye bread"] : [1: "milk", 2: "rye bread", 4: "tea"]),
        "took in the removal: \(takesInRemoval)")
    }
  }

  /// Saves and reads ``start``, then removes the file as the engine does before it renames
  /// Bob's version in; returns the bytes saved.
  private func savedThenRemoved(_ devices: TwoDevices) throws -> Data {
    let shared = try devices.save(start)
    _ = try devices.key.load(in: devices.here.context)
    try devices.here.disk.removeItem(at: devices.here.notesURL)
    return shared
  }

  @Test("A file brought back to an older version of this device's is left as it is")
  func restoredOlderVersionKept() throws {
    let devices = TwoDevices()
    let older = try devices.save(start)
    try devices.save(start + [Note(id: 4, text: "tea")])
    devices.here.put(older, as: "notes.json")
    devices.merge()
    #expect(devices.here.bytes("notes.json") == older)
  }

  @Test("A file without ancestry that replaced a save is someone's choice, and is left as it is")
  func unrelatedFileKept() throws {
    let devices = TwoDevices()
    try devices.save(start)
    let plain = try NotesFormat.encode([Note(id: 9, text: "new start")])
    devices.here.put(plain, as: "notes.json")
    devices.merge()
    #expect(devices.here.bytes("notes.json") == plain)
  }

  @Test("A plain JSON file's copy is merged against the version this device last received")
  func plainFileGuessedBase() async throws {
    let folder = SyncedFolder()
    let url = folder.notesURL
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    // Bob's version arrived; this device read it, then saved its own change.
    folder.put(try encoder.encode(start), as: "notes.json")
    let notes = StorageContext.withValue(folder.context) {
      Shared(.fileStorage(url, saveInterval: .seconds(3600)), default: [Note]())
    }
    #expect(notes.wrappedValue == start)
    notes.withLock { $0.removeAll { $0.id == 3 } }
    try await notes.save()
    waitForRecords()
    // Meanwhile Bob edited note 2: the engine kept his version as a copy.
    var bob = start
    bob[1].text = "rye bread"
    folder.put(try encoder.encode(bob), as: copyName)
    #expect(await eventually { notes.lastConflict?.otherDevice?.base == .guessed })
    #expect(await eventually { notes.wrappedValue.texts == [1: "milk", 2: "rye bread"] })
    #expect(folder.names == ["notes.json"])
  }
}
