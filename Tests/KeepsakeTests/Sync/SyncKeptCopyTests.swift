import Foundation
import Testing

@_spi(Testing) @testable import Keepsake

@Suite("Copies that are kept, not merged")
struct SyncKeptCopyTests {
  let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
  let start = [Note(id: 1, text: "milk")]

  /// A `Shared` of `key` on `folder`'s storage, with a default of no notes.
  func shared(_ key: FileStorageKey<[Note]>, on folder: SyncedFolder) -> Shared<[Note]> {
    StorageContext.withValue(folder.context) { Shared(key, default: []) }
  }

  @Test(
    "An unreadable copy is kept as it is, reported, and never removed",
    arguments: [Data("{\"content\":[{\"id\":1,".utf8), Data(), Data("[1, 2]".utf8)])
  func unreadableCopyKept(_ bytes: Data) async throws {
    let devices = TwoDevices()
    let file = try devices.save(start)
    devices.here.put(bytes, as: copyName)
    let notes = shared(devices.key, on: devices.here)
    #expect(await eventually { notes.lastConflict?.otherDevice != nil })
    guard case .notMerged = notes.lastConflict?.resolution else {
      Issue.record("reported as \(String(describing: notes.lastConflict))")
      return
    }
    #expect(devices.merge().isEmpty)
    #expect(devices.here.bytes(copyName) == bytes)
    #expect(devices.here.bytes("notes.json") == file)
  }

  @Test("A copy written by a newer version of the app is kept and never merged")
  func futureCopyKept() async throws {
    let devices = TwoDevices()
    let file = try devices.save(start)
    let future = Data(#"{"content":[{"id":1,"text":"milk","colour":"red"}],"version":9}"#.utf8)
    devices.here.put(future, as: copyName)
    let notes = shared(devices.key, on: devices.here)
    #expect(await eventually { notes.lastConflict?.otherDevice != nil })
    guard case .notMerged(let reason) = notes.lastConflict?.resolution else {
      Issue.record("reported as \(String(describing: notes.lastConflict))")
      return
    }
    #expect(reason.contains("9"), "\(reason)")
    #expect(devices.merge().isEmpty)
    #expect(devices.here.bytes(copyName) == future)
    #expect(devices.here.bytes("notes.json") == file)
  }

  @Test("A value that cannot merge keeps both, and the app is told the engine's copy")
  func unmergeableKeepsBoth() async throws {
    let folder = SyncedFolder()
    let url = folder.url("settings.json")
    let key = FileStorageKey.fileStorage(url, format: SettingsFormat.self)
    let ours = Settings(theme: "dark", fontSize: 14)
    try key.save(ours, in: folder.context)
    let copy = folder.url("settings.sync-conflict-20261201-152748-6IHVPYN.json")
    let theirs = try SettingsFormat.encode(Settings(theme: "light", fontSize: 12))
    folder.disk.setContents(theirs, at: copy)
    let settings = StorageContext.withValue(folder.context) {
      Shared(key, default: Settings(theme: "", fontSize: 0))
    }
    #expect(await eventually { settings.lastConflict != nil })
    let conflict = try #require(settings.lastConflict)
    #expect(conflict.resolution == .keptBoth(copy: copy))
    #expect(conflict.otherDevice?.origin == .conflictCopy(copy, engine: .syncthing))
    #expect(settings.wrappedValue == ours)
    #expect(try folder.disk.contents(of: copy) == theirs)
    #expect(conflict.description.contains(copy.path))
  }

  @Test("A copy is removed only once the merged file is durably written")
  func removedOnlyAfterDurableWrite() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(start + [Note(id: 2, text: "bread")])
    let copy = try devices.theirs(start + [Note(id: 3, text: "tea")], over: shared)
    devices.here.put(copy, as: copyName)
    let file = devices.here.bytes("notes.json")
    let target = devices.here.notesURL.path
    devices.here.disk.faultHandler = { operation, path in
      operation == .rename && path == target ? .fail(.diskFull) : nil
    }
    #expect(devices.merge().isEmpty)
    #expect(devices.here.bytes(copyName) == copy, "the copy stays while its content is not saved")
    #expect(devices.here.bytes("notes.json") == file)
    devices.here.disk.faultHandler = nil
    #expect(devices.merge() == [copyName])
    #expect(try devices.stored().texts == [1: "milk", 2: "bread", 3: "tea"])
  }

  @Test(
    "After the wait, a device that lacks the newest common version merges an older one, and names what it kept from one side"
  )
  func olderBaseAfterWait() async throws {
    let devices = TwoDevices(baseWait: .zero)
    // Only an older shared version is on this device; the newest came from another device and
    // was replaced before this device read it.
    let older = try devices.save(start)
    let newest = try devices.theirs(
      start + [Note(id: 2, text: "bread")], over: older, device: "CAROLCC")
    // This device's file deleted the bread the newest version added, and added tea; the other
    // device, still on the newest version, added jam. This device holds only the older version.
    devices.here.put(
      try devices.theirs(start + [Note(id: 4, text: "tea")], over: newest, device: "ANNAAAA"),
      as: "notes.json")
    devices.here.put(
      try devices.theirs(
        start + [Note(id: 2, text: "bread"), Note(id: 5, text: "jam")], over: newest),
      as: copyName)
    let notes = shared(devices.key, on: devices.here)
    #expect(await eventually { notes.lastConflict?.otherDevice != nil })
    #expect(notes.lastConflict?.otherDevice?.base == .olderCommonVersion)
    #expect(await eventually { notes.wrappedValue.count == 4 })
    #expect(notes.wrappedValue.texts == [1: "milk", 2: "bread", 4: "tea", 5: "jam"])
    guard case .merged(let parts)? = notes.lastConflict?.resolution else {
      Issue.record("reported as \(String(describing: notes.lastConflict))")
      return
    }
    #expect(Set(parts) == ["2", "4", "5"], "the bread came back: the app is told, with the rest")
    #expect(devices.here.names == ["notes.json"], "both sides' elements are in the file: no copy")
  }

  @Test("Without any common version, the copy is merged against the key's default, and said so")
  func missingBase() async throws {
    let devices = TwoDevices()
    // A first launch against a folder that already holds a file and a copy of two devices that
    // never shared a version.
    devices.here.put(
      try devices.theirs([Note(id: 1, text: "milk")], over: nil, device: "ANNAAAA"),
      as: "notes.json")
    devices.here.put(try devices.theirs([Note(id: 2, text: "tea")], over: nil), as: copyName)
    let notes = shared(devices.key, on: devices.here)
    #expect(await eventually { notes.lastConflict?.otherDevice != nil })
    #expect(notes.lastConflict?.otherDevice?.base == .missing)
    #expect(notes.lastConflict?.description.contains("no common version this device keeps") == true)
    #expect(await eventually { notes.wrappedValue.count == 2 })
    #expect(devices.here.names == ["notes.json"])
  }
}
