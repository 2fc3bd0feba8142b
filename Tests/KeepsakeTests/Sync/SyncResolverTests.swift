import Foundation
import Testing

@testable import Keepsake

@Suite("Merging a sync engine's conflict copy")
struct SyncResolverTests {
  let start = [Note(id: 1, text: "milk"), Note(id: 2, text: "bread"), Note(id: 3, text: "eggs")]
  /// Here, apart: an edit, a deletion and an insert.
  let mine = [Note(id: 1, text: "oat milk"), Note(id: 2, text: "bread"), Note(id: 4, text: "tea")]
  /// On the other device, apart: another edit and another insert.
  let theirs = [
    Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread"), Note(id: 3, text: "eggs"),
    Note(id: 5, text: "jam"),
  ]
  let merged = [1: "oat milk", 2: "rye bread", 4: "tea", 5: "jam"]

  @Test(
    "Each engine's copy is merged against the newest common version, then removed",
    arguments: [
      "notes.sync-conflict-20261201-152748-6IHVPYN.json",
      "notes (Bob's conflicted copy 2026-12-01).json",
      "notes (conflicted copy 2026-12-01 152748).json",
      "notes_conflict-20261201-152748.json",
    ])
  func mergedAndRemoved(_ copy: String) throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(mine)
    devices.here.put(try devices.theirs(theirs, over: shared), as: copy)
    #expect(devices.merge() == [copy])
    #expect(try devices.stored().texts == merged, "note 3 stays deleted, every edit is kept")
    #expect(devices.here.names == ["notes.json"])
  }

  @Test("An element changed here and on the other device keeps both changes to different fields")
  func mergedFieldByField() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save([Note(id: 1, text: "oat milk")] + start.dropFirst())
    var pinned = start
    pinned[0].pinned = true
    devices.here.put(
      try devices.theirs(pinned, over: shared),
      as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    devices.merge()
    let note = try devices.stored().first { $0.id == 1 }
    #expect(note?.text == "oat milk", "our text")
    #expect(note?.pinned == true, "their pin")
  }

  @Test("A field changed on both devices keeps ours in the file and theirs in a copy beside it")
  func fieldChangedOnBothDevicesKeepsTheirs() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save([Note(id: 1, text: "oat milk")] + start.dropFirst())
    var edited = start
    edited[0].text = "almond milk"
    edited[1].pinned = true
    let copy = try devices.theirs(edited, over: shared)
    devices.here.put(copy, as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    devices.merge()
    let stored = try devices.stored()
    #expect(stored.first { $0.id == 1 }?.text == "oat milk", "ours, in the file")
    #expect(stored.first { $0.id == 2 }?.pinned == true, "their change to another note, merged")
    let kept = devices.here.names.filter { $0.hasPrefix("notes.conflict-") }
    #expect(kept.count == 1, "theirs, beside the file: \(devices.here.names)")
    let theirs = try NotesFormat.decode(try #require(devices.here.bytes(kept.first ?? "")))
    #expect(theirs.first { $0.id == 1 }?.text == "almond milk")
  }

  /// A note as an older version of the app knows it: without `pinned`, at the same format
  /// version.
  nonisolated struct NoteWithoutPin: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var text: String
  }

  nonisolated enum OlderModelNotesFormat: VersionedFormat {
    typealias Value = [NoteWithoutPin]
    static let currentVersion = 2
    static let migrations =
      MigrationChain
      .starting(at: 1, with: [OldNote].self)
      .migratingJSON(to: 2, as: [NoteWithoutPin].self) { content in
        try content.updateElements { note in try note.renameKey("body", to: "text") }
      }
  }

  @Test("An older model keeps theirs in a copy when a field it cannot see changed on both devices")
  func unknownFieldChangedOnBothDevicesKeepsTheirs() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    var pinnedHere = start
    pinnedHere[0].pinned = true
    try devices.save(pinnedHere)
    var pinnedThere = start
    pinnedThere[0].pinned = false
    pinnedThere[1].text = "rye bread"
    devices.here.put(
      try devices.theirs(pinnedThere, over: shared),
      as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    // The older version of the app, on this device, merges the engine's copy.
    var options = SyncOptions()
    options.baseWait = .seconds(3600)
    let older = FileStorageKey.fileStorage(
      devices.here.notesURL, format: OlderModelNotesFormat.self
    ).syncOptions(options)
    _ = try older.load(in: devices.here.context)
    older.mergeConflictCopies(in: devices.here.context)
    waitForRecords()
    let stored = try devices.stored()
    #expect(stored.first { $0.id == 2 }?.text == "rye bread", "their change of a field it knows")
    #expect(stored.first { $0.id == 1 }?.pinned == true, "ours, in the file")
    let kept = devices.here.names.filter { $0.hasPrefix("notes.conflict-") }
    #expect(kept.count == 1, "theirs, beside the file: \(devices.here.names)")
    let theirs = try NotesFormat.decode(try #require(devices.here.bytes(kept.first ?? "")))
    #expect(theirs.first { $0.id == 1 }?.pinned == false)
  }

  @Test("The merged file lists both versions as its parents")
  func mergeListsBothSides() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    let file = try devices.save(mine)
    let copy = try devices.theirs(theirs, over: shared)
    devices.here.put(copy, as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    devices.merge()
    let result = try #require(devices.here.bytes("notes.json"))
    let ancestry = try #require(Ancestry(parsing: result))
    #expect(ancestry.writer == Ancestry.mergeWriter)
    let parents = ancestry.versions.prefix(2).map(\.hash).sorted()
    #expect(parents == [FileVersion.hash(of: file), FileVersion.hash(of: copy)].sorted())
  }

  @Test("Two devices that merge the same copy write the same bytes, so the engine sees no conflict")
  func devicesAgree() throws {
    let ann = TwoDevices(folder: SyncedFolder(name: "Ann"))
    let shared = try ann.save(start)
    let file = try ann.save(mine)
    let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
    let copy = try ann.theirs(theirs, over: shared)
    // Bob received the shared version and wrote the copy's content; the engine then left the
    // same file and copy on both devices.
    let bob = TwoDevices(folder: SyncedFolder(name: "Bob"))
    bob.here.put(shared, as: "notes.json")
    _ = try bob.key.load(in: bob.here.context)
    waitForRecords()
    for device in [ann, bob] {
      device.here.put(file, as: "notes.json")
      device.here.put(copy, as: copyName)
      #expect(device.merge() == [copyName])
    }
    #expect(ann.here.bytes("notes.json") == bob.here.bytes("notes.json"))
  }

  @Test("The base survives a restart: a new context on the same disk still finds it")
  func baseSurvivesRestart() throws {
    let disk = InMemoryFileSystem()
    let before = TwoDevices(folder: SyncedFolder(disk: disk, name: "first launch"))
    let shared = try before.save(start)
    try before.save(mine)
    // The app quits; the other device's copy arrives; the app starts again.
    let after = TwoDevices(folder: SyncedFolder(disk: disk, name: "second launch"))
    after.here.put(
      try after.theirs(theirs, over: shared), as: "notes.sync-conflict-20261201-152748-6IHVPYN.json"
    )
    #expect(after.merge().count == 1)
    #expect(try after.stored().texts == merged)
  }

  @Test("A copy the file already includes is removed, and the file is left as it is")
  func includedCopyRemoved() throws {
    let devices = TwoDevices()
    let older = try devices.save(start)
    let file = try devices.save(mine)
    devices.here.put(older, as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    #expect(devices.merge().count == 1)
    #expect(devices.here.bytes("notes.json") == file)
    #expect(devices.here.names == ["notes.json"])
  }

  @Test("A copy that descends from the file takes its place: the engine kept the older one")
  func newerCopyReplacesFile() throws {
    let devices = TwoDevices()
    let file = try devices.save(start)
    let newer = try devices.theirs(theirs, over: file)
    devices.here.put(newer, as: "notes.sync-conflict-20261201-152748-6IHVPYN.json")
    #expect(devices.merge().count == 1)
    #expect(devices.here.bytes("notes.json") == newer)
  }

  @Test("Copies of three devices are merged one after the other, oldest name first")
  func threeDevices() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(mine)
    let bob = try devices.theirs(theirs, over: shared)
    let carol = try devices.theirs(
      start + [Note(id: 6, text: "figs")], over: shared, device: "CAROLCC")
    devices.here.put(bob, as: "notes.sync-conflict-20261201-152748-BOBBBBB.json")
    devices.here.put(carol, as: "notes.sync-conflict-20261201-152800-CAROLCC.json")
    #expect(devices.merge().count == 2)
    var expected = merged
    expected[6] = "figs"
    #expect(try devices.stored().texts == expected)
  }

  @Test("Two merges of the same versions made apart (a criss-cross) merge against their merge")
  func crissCross() throws {
    let devices = TwoDevices()
    let store = devices.key.syncTarget.store(in: devices.here.context)
    func version(_ notes: [Note], _ ancestry: Ancestry) throws -> (Data, FileVersion) {
      let data = try NotesFormat.encode(notes, ancestry: ancestry)
      store.record(data, hash: FileVersion.hash(of: data), kind: .read, of: devices.here.notesURL)
      return (data, FileVersion(data, readsAncestry: true))
    }
    let (_, start) = try version([Note(id: 1, text: "a")], .child(of: nil, writer: "CAROLCC"))
    // Ann adds note 8; Bob, two saves later, note 9: neither includes the other.
    let (_, ann) = try version(
      [Note(id: 1, text: "a"), Note(id: 8, text: "h")], .child(of: start, writer: "ANNAAAA"))
    let (_, bob1) = try version(
      [Note(id: 1, text: "b")], .child(of: start, writer: "BOBBBBB"))
    let (_, bob) = try version(
      [Note(id: 1, text: "b"), Note(id: 9, text: "i")], .child(of: bob1, writer: "BOBBBBB"))
    // Two devices merged them apart, in different orders: two different merges.
    let (_, first) = try version(
      [Note(id: 1, text: "b"), Note(id: 8, text: "h"), Note(id: 9, text: "i")],
      .merge(of: ann, and: bob))
    let (_, second) = try version(
      [Note(id: 1, text: "b"), Note(id: 9, text: "i"), Note(id: 8, text: "h")],
      .merge(of: bob, and: ann))
    // Ann deletes note 8 after the first; Bob adds note 10 after the second.
    let (file, _) = try version(
      [Note(id: 1, text: "b"), Note(id: 9, text: "i")], .child(of: first, writer: "ANNAAAA"))
    let (copy, _) = try version(
      [
        Note(id: 1, text: "b"), Note(id: 9, text: "i"), Note(id: 8, text: "h"),
        Note(id: 10, text: "j"),
      ],
      .child(of: second, writer: "BOBBBBB"))
    waitForRecords()
    devices.here.put(file, as: "notes.json")
    devices.here.put(copy, as: "notes.sync-conflict-20261201-152748-BOBBBBB.json")
    #expect(devices.merge().count == 1)
    #expect(try devices.stored().texts == [1: "b", 9: "i", 10: "j"], "note 8 stays deleted")
  }

  @Test("A device that lacks the newest common version waits for one that has it")
  func waitsForBase() throws {
    let devices = TwoDevices(folder: SyncedFolder(), baseWait: .seconds(3600))
    // The shared version was never on this device: another device wrote it, both edited it.
    let shared = try devices.theirs(start, over: nil, device: "CAROLCC")
    let file = try devices.theirs(mine, over: shared, device: "ANNAAAA")
    devices.here.put(file, as: "notes.json")
    let copy = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
    devices.here.put(try devices.theirs(theirs, over: shared), as: copy)
    #expect(devices.merge().isEmpty)
    #expect(devices.here.bytes("notes.json") == file)
    #expect(devices.here.names.contains(copy))
  }
}
