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
