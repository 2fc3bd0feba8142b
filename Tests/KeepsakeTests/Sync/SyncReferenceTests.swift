import Foundation
import Testing

@testable import Keepsake

@Suite("A Shared in a synced folder")
struct SyncReferenceTests {
  let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
  let start = [Note(id: 1, text: "milk"), Note(id: 2, text: "bread")]

  func shared(_ key: FileStorageKey<[Note]>, on folder: SyncedFolder) -> Shared<[Note]> {
    StorageContext.withValue(folder.context) { Shared(key, default: []) }
  }

  @Test("A copy already there when the key is made is merged before its first read")
  func mergedBeforeFirstRead() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(start + [Note(id: 3, text: "tea")])
    devices.here.put(
      try devices.theirs(start + [Note(id: 4, text: "jam")], over: shared), as: copyName)
    let notes = self.shared(.notes(devices.here.notesURL), on: devices.here)
    // No wait: a command-line tool's one read must see the other device's drafts.
    #expect(notes.wrappedValue.texts == [1: "milk", 2: "bread", 3: "tea", 4: "jam"])
    let conflict = try #require(notes.lastConflict)
    #expect(conflict.resolution == .merged(overlapping: []))
    #expect(
      conflict.otherDevice
        == SyncedVersion(
          origin: .conflictCopy(devices.here.url(copyName), engine: .syncthing),
          base: .newestCommonVersion))
    #expect(devices.here.names == ["notes.json"])
  }

  @Test("A copy that appears later is merged, and the value in memory follows")
  func copyAppearingLater() async throws {
    let devices = TwoDevices()
    let notes = shared(devices.key, on: devices.here)
    notes.withLock { $0 = start }
    try await notes.save()
    let saved = try #require(devices.here.bytes("notes.json"))
    notes.withLock { $0.append(Note(id: 3, text: "tea")) }
    try await notes.save()
    waitForRecords()
    devices.here.put(
      try devices.theirs(start + [Note(id: 4, text: "jam")], over: saved), as: copyName)
    // NB: the report first: the reload follows it, and a wait for a second change that comes
    // while the first one's wait re-arms its observation would sleep until its timeout.
    #expect(await eventually { notes.lastConflict?.otherDevice != nil })
    #expect(await eventually { notes.wrappedValue.count == 4 })
    #expect(notes.wrappedValue.texts == [1: "milk", 2: "bread", 3: "tea", 4: "jam"])
  }

  @Test("A copy that appears while a change is pending: the file ends with all three changes")
  func copyWhileChangePending() async throws {
    let devices = TwoDevices()
    let notes = StorageContext.withValue(devices.here.context) {
      Shared(
        FileStorageKey.fileStorage(
          devices.here.notesURL, format: NotesFormat.self, saveInterval: .seconds(3600)),
        default: [Note]())
    }
    notes.withLock { $0 = start }
    try await notes.save()
    let saved = try #require(devices.here.bytes("notes.json"))
    waitForRecords()
    // Pending here, never saved yet: note 3.
    notes.withLock { $0.append(Note(id: 3, text: "pending")) }
    devices.here.put(
      try devices.theirs(start + [Note(id: 4, text: "from Bob")], over: saved), as: copyName)
    // The merged copy arrives as an outside change, which the pending change is saved against.
    #expect(await eventually { notes.wrappedValue.count == 4 })
    try await notes.flush()
    let stored = try NotesFormat.decode(try #require(devices.here.bytes("notes.json")))
    #expect(stored.texts == [1: "milk", 2: "bread", 3: "pending", 4: "from Bob"])
    #expect(devices.here.names == ["notes.json"])
  }

  @Test("Outside a synced folder a versioned file keeps its exact bytes: no ancestry")
  func bytesOutsideSyncedFolders() throws {
    let disk = InMemoryFileSystem()
    let context = StorageContext.inMemory(fileSystem: disk)
    let url = URL(fileURLWithPath: "/home/ann/Documents/notes.json")
    try FileStorageKey.fileStorage(url, format: NotesFormat.self).save(start, in: context)
    #expect(try disk.contents(of: url) == NotesFormat.encode(start))
  }

  @Test("Inside one, each save lists the version it replaced, written by this device")
  func savesCarryAncestry() throws {
    let devices = TwoDevices()
    let first = try devices.save(start)
    let second = try devices.save(start + [Note(id: 3, text: "tea")])
    let ancestry = try #require(Ancestry(parsing: second))
    #expect(ancestry.versions.first?.hash == FileVersion.hash(of: first))
    let device = try devices.key.syncTarget.store(in: devices.here.context).deviceID()
    #expect(ancestry.writer == device)
    #expect(try NotesFormat.decode(second).count == 3)
  }
}
