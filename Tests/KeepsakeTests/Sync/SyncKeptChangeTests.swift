import Foundation
import Testing

@testable import Keepsake

/// Changes an older version of the app kept beside a file in a synced folder (it could not read
/// the newer file), taken in by devices while they were apart.
@Suite("Kept changes taken in on devices apart")
struct SyncKeptChangeTests {
  let one = [Note(id: 1, text: "one")]
  let two = [Note(id: 1, text: "one"), Note(id: 2, text: "two")]

  /// Three devices on in-memory disks, their keys and the engine between them.
  struct Devices {
    let folders = (0..<3).map { SyncedFolder(name: "device \($0)") }
    let keys: [FileStorageKey<[Note]>]
    let engine: FakeSyncEngine

    init() {
      keys = folders.map { FileStorageKey<[Note]>.notes($0.notesURL) }
      engine = FakeSyncEngine(folders)
    }

    /// Syncs the linked pairs; each device reads what it received, as an open app does.
    func sync(_ pairs: [(Int, Int)]) throws {
      for (a, b) in pairs where engine.sync(a, b) {
        _ = try keys[a].load(in: folders[a].context)
        _ = try keys[b].load(in: folders[b].context)
      }
      waitForRecords()
    }

    /// The newer app on `device` takes in the changes kept beside its file.
    func takeIn(on device: Int) {
      keys[device].takeInKeptChanges(in: folders[device].context)
      waitForRecords()
    }

    /// Everyone linked, merging and taking in, until nothing changes.
    func meet() throws {
      for _ in 0..<20 {
        let before = snapshot
        try sync([(0, 1), (0, 2), (1, 2)])
        for device in 0..<3 {
          keys[device].mergeConflictCopies(in: folders[device].context)
          takeIn(on: device)
        }
        if snapshot == before { return }
      }
    }

    /// Every device's files and their bytes.
    var snapshot: [[String: Data]] {
      folders.map { folder in
        Dictionary(uniqueKeysWithValues: folder.names.map { ($0, folder.bytes($0) ?? Data()) })
      }
    }

    func stored(on device: Int) throws -> [Int: String] {
      try NotesFormat.decode(try #require(folders[device].bytes("notes.json"))).texts
    }
  }

  /// The bytes of a change the older app kept: `change` made over `base`, with earlier `steps`.
  func kept(_ change: [Note], base: [Note], steps: [[Note]] = []) throws -> Data {
    var kept = UnsavedChange(
      reason: "refused", change: try NotesFormat.encode(change),
      base: try NotesFormat.encode(base))
    kept.steps = try steps.map { UnsavedChange.Text(try NotesFormat.encode($0)) }
    return try UnsavedChange.encoder.encode(kept)
  }

  /// The name of the change the older app kept first.
  let added = "notes.unsaved-20261206T120000Z.json"

  /// Three devices with the file of note 1; the older app on device 0 adds note 2, and, as it
  /// cannot read the newer file, keeps the change beside it, which reaches devices 1 and 2.
  func devicesWithAKeptAddition() throws -> Devices {
    let devices = Devices()
    try devices.keys[0].save(one, in: devices.folders[0].context)
    try devices.sync([(0, 1), (0, 2)])
    devices.folders[0].put(try kept(two, base: one), as: added)
    try devices.sync([(0, 1), (0, 2)])
    return devices
  }

  @Test(
    "A deletion an older version kept stays deleted when two devices each took in its earlier change apart"
  )
  func keptDeletionStaysDeleted() throws {
    let devices = try devicesWithAKeptAddition()
    // Devices 1 and 2, apart from each other, each take in the addition.
    devices.takeIn(on: 1)
    devices.takeIn(on: 2)
    #expect(try devices.stored(on: 1) == two.texts)
    #expect(try devices.stored(on: 2) == two.texts)
    // The older app deletes note 2: a change that takes the place of the first, holding it as
    // a step. Only device 1 is linked to device 0 now, and takes it in.
    try devices.folders[0].disk.removeItem(at: devices.folders[0].url(added))
    devices.folders[0].put(
      try kept(one, base: one, steps: [two]), as: "notes.unsaved-20261206T120100Z.json")
    try devices.sync([(0, 1)])
    devices.takeIn(on: 1)
    #expect(try devices.stored(on: 1) == one.texts)

    try devices.meet()
    for device in 0..<3 {
      #expect(try devices.stored(on: device) == one.texts, "device \(device): note 2 is deleted")
      #expect(devices.folders[device].names == ["notes.json"], "device \(device): nothing left")
    }
  }

  /// Three devices whose lines meet after one took in a deletion of a note it did not hold.
  ///
  /// Device 2 adds note 3, which reaches device 0 only; device 1 edits note 1 meanwhile, and
  /// device 2 then edits note 3 to `edit`, when given. The older app on device 0 deletes note 3
  /// and keeps the change beside the file. The change reaches device 1 ahead of the file it was
  /// made on: device 1 takes it in (it changes nothing there) and removes it. Then device 1's
  /// version meets device 0's, which holds note 3, and the engine keeps one of them in a
  /// conflict copy. Returns the devices, all linked and merged.
  ///
  /// `onlyDeviceOneHoldsIt`: the change never reaches device 0 (the older app ran on device 1,
  /// and its newer app took the change in at once), and device 0 merges the two lines first.
  func keptChangeOnALineWithoutTheNote(
    deviceTwoEdits edit: String? = nil, onlyDeviceOneHoldsIt: Bool = false
  ) throws -> Devices {
    let devices = Devices()
    let three = [Note(id: 1, text: "one"), Note(id: 3, text: "three")]
    try devices.keys[0].save(one, in: devices.folders[0].context)
    try devices.sync([(0, 1), (0, 2)])
    try devices.keys[2].save(three, in: devices.folders[2].context)
    try devices.sync([(0, 2)])
    try devices.keys[1].save([Note(id: 1, text: "one!")], in: devices.folders[1].context)
    if let edit {
      // After the older app read note 3, device 2 edits it.
      try devices.keys[2].save(
        [Note(id: 1, text: "one"), Note(id: 3, text: edit)], in: devices.folders[2].context)
    }
    let change = try kept(one, base: three)
    if !onlyDeviceOneHoldsIt { devices.folders[0].put(change, as: added) }
    // The small change reaches device 1 ahead of the file it was made on.
    devices.folders[1].put(change, as: added)
    devices.takeIn(on: 1)
    #expect(devices.folders[1].names.contains(added) == false, "device 1 took the change in")
    if onlyDeviceOneHoldsIt {
      // Device 1's version wins the name; device 0 merges first.
      devices.engine.sync(0, 1)
      _ = try devices.keys[0].load(in: devices.folders[0].context)
      waitForRecords()
    } else {
      try devices.sync([(0, 1)])
    }
    try devices.meet()
    return devices
  }

  @Test(
    "A deletion an older version kept, taken in on a line that no longer held the note, stays deleted"
  )
  func keptDeletionOfANoteTheLineLacked() throws {
    let devices = try keptChangeOnALineWithoutTheNote()
    for device in 0..<3 {
      #expect(
        try devices.stored(on: device) == [1: "one!"], "device \(device): note 3 stays deleted")
      #expect(devices.folders[device].names == ["notes.json"], "device \(device): nothing left")
    }
  }

  @Test(
    "A deletion an older version kept, taken in by the one device that held it on a line without the note, stays deleted on devices that never held it"
  )
  func keptDeletionNoOtherDeviceHeld() throws {
    let devices = try keptChangeOnALineWithoutTheNote(onlyDeviceOneHoldsIt: true)
    for device in 0..<3 {
      #expect(
        try devices.stored(on: device) == [1: "one!"], "device \(device): note 3 stays deleted")
      #expect(devices.folders[device].names == ["notes.json"], "device \(device): nothing left")
    }
  }

  @Test("A note another device edited after the older version deleted it is kept")
  func keptDeletionLosesToALaterEdit() throws {
    let devices = try keptChangeOnALineWithoutTheNote(deviceTwoEdits: "three, edited")
    for device in 0..<3 {
      #expect(
        try devices.stored(on: device) == [1: "one!", 3: "three, edited"],
        "device \(device): the edit is not lost")
    }
  }

  @Test(
    "A note deleted on both lines, one of them after another device edited it, goes with no copy")
  func deletedOnBothLines() throws {
    let devices = Devices()
    let three = [Note(id: 1, text: "one"), Note(id: 3, text: "three")]
    let edited = [Note(id: 1, text: "one"), Note(id: 3, text: "three, edited")]
    try devices.keys[0].save(three, in: devices.folders[0].context)
    try devices.sync([(0, 1), (0, 2)])
    try devices.keys[2].save(edited, in: devices.folders[2].context)
    try devices.sync([(0, 2)])
    // Device 1 deletes note 3 itself; the older app on device 0 deletes it after the edit.
    try devices.keys[1].save(one, in: devices.folders[1].context)
    let change = try kept(one, base: edited)
    devices.folders[0].put(change, as: added)
    devices.folders[1].put(change, as: added)
    devices.takeIn(on: 1)
    // Device 2's version wins the name; device 1, which holds the change, merges the copy first.
    devices.engine.sync(1, 2)
    _ = try devices.keys[1].load(in: devices.folders[1].context)
    waitForRecords()
    try devices.meet()
    for device in 0..<3 {
      #expect(try devices.stored(on: device) == one.texts, "device \(device): note 3 is deleted")
      #expect(devices.folders[device].names == ["notes.json"], "device \(device): no copy kept")
    }
  }

  @Test(
    "A note an older version added and then deleted stays deleted when each change reached another line"
  )
  func addedThenDeletedOnTwoLines() throws {
    let devices = try devicesWithAKeptAddition()
    // Device 1 takes in the addition; its removal reaches device 0, so the older app makes its
    // deletion of note 2 on it; that change reaches only device 2, whose line never had note 2.
    devices.takeIn(on: 1)
    try devices.folders[0].disk.removeItem(at: devices.folders[0].url(added))
    try devices.folders[2].disk.removeItem(at: devices.folders[2].url(added))
    let deletion = try kept(one, base: two)
    let name = "notes.unsaved-20261206T120100Z.json"
    devices.folders[0].put(deletion, as: name)
    devices.folders[2].put(deletion, as: name)
    try devices.keys[2].save([Note(id: 1, text: "one, on 2")], in: devices.folders[2].context)
    devices.takeIn(on: 2)
    try devices.folders[0].disk.removeItem(at: devices.folders[0].url(name))
    // Device 1's version wins the name; device 2, which holds the deletion, merges first.
    devices.engine.sync(1, 2)
    _ = try devices.keys[2].load(in: devices.folders[2].context)
    waitForRecords()
    try devices.meet()
    for device in 0..<3 {
      #expect(try devices.stored(on: device) == [1: "one, on 2"], "device \(device)")
      #expect(devices.folders[device].names == ["notes.json"], "device \(device): nothing left")
    }
  }

  @Test("A file that holds a kept change already is left as it is, and the change goes")
  func includedChangeNotMergedAgain() throws {
    let devices = try devicesWithAKeptAddition()
    devices.takeIn(on: 1)
    // Device 1's file reaches device 2 before the change's removal does.
    let merged = try #require(devices.folders[1].bytes("notes.json"))
    devices.folders[2].put(merged, as: "notes.json")
    devices.takeIn(on: 2)
    #expect(devices.folders[2].bytes("notes.json") == merged, "no second version of the same")
    #expect(devices.folders[2].names == ["notes.json"])
  }
}
