import Foundation
import Synchronization
import Testing

@testable import Keepsake

/// Three devices on in-memory disks and a miniature engine (`FakeSyncEngine`): every device adds,
/// edits and deletes notes of its own while the links between them come and go, and after they
/// are all connected and quiet, every device's file is the same and holds exactly the notes of
/// the model (which knows nothing of Keepsake: each device's live notes and their last texts).
///
/// With an older app, device 0 also runs a version of the app one format version older, which
/// cannot read the file: each of its changes is kept beside the file, syncs like any file, and
/// every device's newer app takes it in as it appears.
///
/// NB: each run is on a thread of its own (`offThePool`): it blocks for seconds (in-memory disks,
/// the sync queue's records), and on the concurrency pool's threads the runs stalled other
/// suites' tests that wait a second of real time for an effect (a `TestStore`'s `receive`).
@Suite("Three devices, repeated offline periods")
struct DevicesSimulationTests {
  /// One device: its folder, its key (used the way an app's saves use it, one at a time) and
  /// the model of its own notes.
  ///
  /// NB: unchecked: used by one thread at a time, the run's, then handed to the test.
  final class Device: @unchecked Sendable {
    let index: Int
    let folder: SyncedFolder
    let key: FileStorageKey<[Note]>
    let reports = Reports()
    /// The model: this device's live notes and their texts.
    var own: [Int: String] = [:]
    var next = 0

    init(_ index: Int, baseWait: Duration) {
      self.index = index
      folder = SyncedFolder(name: "device \(index)")
      key = .notes(folder.notesURL, baseWait: baseWait)
      key.reportSyncConflicts(fallback: []) { [reports] conflict in reports.add(conflict) }
    }

    /// Adds, edits or deletes one of its own notes, through a load and a save.
    ///
    /// NB: a person edits or deletes only what the app shows: an own note missing from the file
    /// this moment (another device's version without it arrived before the merge that brings it
    /// back) is left alone, as a person could not have touched it.
    func edit(_ random: inout SeededRandom) throws {
      var notes = try key.load(in: folder.context) ?? []
      let visible = own.keys.filter { id in notes.contains { $0.id == id } }.sorted()
      let choice = visible.isEmpty ? 0 : random.next(below: 3)
      if choice == 0 {
        next += 1
        let id = index * 10_000 + next
        notes.append(Note(id: id, text: "\(id) first"))
        own[id] = "\(id) first"
      } else {
        let id = visible[random.next(below: visible.count)]
        notes.removeAll { $0.id == id }
        if choice == 1 {
          let text = "\(id) edit \(random.next(below: 1000))"
          notes.append(Note(id: id, text: text))
          own[id] = text
        } else {
          own[id] = nil
        }
      }
      try key.save(notes, in: folder.context)
      waitForRecords()
    }

    func resolve() {
      key.mergeConflictCopies(in: folder.context)
      key.takeInKeptChanges(in: folder.context)
      waitForRecords()
    }

    /// Reads the file, as the open app does after every change the engine makes: the version
    /// read becomes one this device holds (a base for later merges).
    func read() throws {
      _ = try key.load(in: folder.context)
      key.takeInKeptChanges(in: folder.context)
      waitForRecords()
    }

    var stored: [Int: String]? {
      folder.bytes("notes.json").flatMap { try? NotesFormat.decode($0).texts }
    }
  }

  /// The conflicts a device's key reported.
  final class Reports: Sendable {
    private let all = Mutex<[SharedConflict]>([])
    func add(_ conflict: SharedConflict) { all.withLock { $0.append(conflict) } }
    var count: Int { all.withLock { $0.count } }

    /// The notes a merge reported as changed on both sides (decided by the merge's policy): a
    /// note's id, or a field of it (`3.text`).
    var overlapping: Set<Int> {
      all.withLock { all in
        Set(
          all.flatMap { conflict -> [Int] in
            guard case .merged(let parts) = conflict.resolution else { return [] }
            return parts.compactMap { Int($0.split(separator: ".").first ?? "") }
          })
      }
    }

    /// The conflict copies reported as keeping the other side of a field changed on both sides.
    var copies: Set<String> {
      all.withLock { all in Set(all.compactMap { $0.copy?.lastPathComponent }) }
    }
  }

  /// The older app on device 0: it cannot read the newer file, so every save of its is refused
  /// and its change kept beside the file; the model of its own notes.
  ///
  /// NB: unchecked, as ``Device``.
  final class OlderApp: @unchecked Sendable {
    let notes: Shared<[OldNote]>
    var own: [Int: String] = [:]
    var next = 0

    init(on folder: SyncedFolder) {
      notes = StorageContext.withValue(folder.context) {
        Shared(
          .fileStorage(folder.notesURL, format: OldNotesFormat.self, saveInterval: .seconds(3600)),
          default: [])
      }
    }

    /// Adds, edits or deletes one of its notes, and tries to save.
    func edit(_ random: inout SeededRandom) {
      let ids = own.keys.sorted()
      let choice = ids.isEmpty ? 0 : random.next(below: 3)
      if choice == 0 {
        next += 1
        let id = 90_000 + next
        notes.withLock { $0.append(OldNote(id: id, body: "\(id) first")) }
        own[id] = "\(id) first"
      } else {
        let id = ids[random.next(below: ids.count)]
        let text = "\(id) edit \(random.next(below: 1000))"
        notes.withLock { notes in
          notes.removeAll { $0.id == id }
          if choice == 1 { notes.append(OldNote(id: id, body: text)) }
        }
        own[id] = choice == 1 ? text : nil
      }
      // NB: the run's own thread waits for the save, which runs on the pool.
      let saved = DispatchSemaphore(value: 0)
      Task { [notes] in
        _ = try? await notes.save()
        saved.signal()
      }
      saved.wait()
    }
  }

  /// A small deterministic generator (SplitMix64).
  struct SeededRandom {
    var state: UInt64
    mutating func next(below bound: Int) -> Int {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(bound))
    }
  }

  func run(
    seed: UInt64, rounds: Int, edits: Int, baseWait: Duration = .seconds(3600),
    olderApp: Bool = false
  ) throws -> (devices: [Device], conflicts: Int, older: OlderApp?) {
    var random = SeededRandom(state: seed)
    let devices = (0..<3).map { Device($0, baseWait: baseWait) }
    let engine = FakeSyncEngine(devices.map(\.folder))
    let pairs = [(0, 1), (0, 2), (1, 2)]
    var older: OlderApp?
    for _ in 0..<rounds {
      // Each link is up or down for this round: devices go offline and come back.
      let links = pairs.filter { _ in random.next(below: 2) == 0 }
      for _ in 0..<edits {
        try devices[random.next(below: 3)].edit(&random)
        // NB: opened once device 0 has the newer app's file, which it then cannot read.
        if olderApp, older == nil, devices[0].folder.bytes("notes.json") != nil {
          older = OlderApp(on: devices[0].folder)
        }
        if let older, random.next(below: 3) == 0 { older.edit(&random) }
        if random.next(below: 2) == 0 {
          for (a, b) in links where engine.sync(a, b) {
            try devices[a].read()
            try devices[b].read()
          }
        }
        if random.next(below: 3) == 0 { devices[random.next(below: 3)].resolve() }
      }
      for (a, b) in links where engine.sync(a, b) {
        try devices[a].read()
        try devices[b].read()
      }
      for device in devices { device.resolve() }
    }
    // Everyone online, until nothing changes any more.
    for _ in 0..<60 {
      var changed = false
      for (a, b) in pairs where engine.sync(a, b) {
        changed = true
        try devices[a].read()
        try devices[b].read()
      }
      let before = devices.map(\.folder.names)
      for device in devices { device.resolve() }
      changed = changed || before != devices.map(\.folder.names)
      if !changed { break }
    }
    return (devices, engine.conflicts, older)
  }

  @Test(
    "Every device ends with the same file, every note of the model in it, and no copies",
    arguments: [1, 2, 3, 4, 5] as [UInt64])
  func converges(_ seed: UInt64) async throws {
    let (devices, conflicts, _) = try await offThePool {
      Result { try run(seed: seed, rounds: 6, edits: 12) }
    }.get()
    var expected: [Int: String] = [:]
    for device in devices { expected.merge(device.own) { $1 } }
    for device in devices {
      #expect(device.stored == expected, "device \(device.index), seed \(seed)")
      #expect(device.folder.names == ["notes.json"], "device \(device.index) has no copies left")
    }
    #expect(conflicts > 0, "the engine made conflict copies (seed \(seed))")
  }

  @Test(
    "Far past the ancestry's reach they still converge and lose no note; deletions may come back",
    arguments: [1, 2] as [UInt64])
  func convergesUnderHeavyDivergence(_ seed: UInt64) async throws {
    // 360 edits with links coming and going, and no wait for a device that holds a base: merges
    // against older common versions or the default.
    let (devices, _, _) = try await offThePool {
      Result { try run(seed: seed, rounds: 12, edits: 30, baseWait: .zero) }
    }.get()
    var expected: [Int: String] = [:]
    for device in devices { expected.merge(device.own) { $1 } }
    let decided = devices.reduce(into: Set<Int>()) { $0.formUnion($1.reports.overlapping) }
    let reportedCopies = devices.reduce(into: Set<String>()) { $0.formUnion($1.reports.copies) }
    let stored = try #require(devices[0].stored)
    for device in devices {
      #expect(device.stored == stored, "device \(device.index) ends like device 0, seed \(seed)")
      // Merged against older common versions or the default, a note may look changed on both
      // sides: theirs is then kept in a conflict copy, which a report names; no engine copy
      // is left.
      let left = Set(device.folder.names).subtracting(["notes.json"])
      #expect(left.isSubset(of: reportedCopies), "device \(device.index): \(left) not reported")
    }
    for (id, text) in expected {
      #expect(stored[id] != nil, "note \(id) is not lost (seed \(seed))")
      if let kept = stored[id], kept != text {
        #expect(decided.contains(id), "note \(id) kept another edit only as a reported overlap")
      }
    }
  }

  @Test(
    "With an older app keeping its changes on device 0, every device ends with its notes too",
    arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func convergesWithAnOlderApp(_ seed: UInt64) async throws {
    let (devices, _, older) = try await offThePool {
      Result { try run(seed: seed, rounds: 6, edits: 12, olderApp: true) }
    }.get()
    let olderApp = try #require(older)
    #expect(!olderApp.own.isEmpty || olderApp.next > 0, "the older app made changes")
    var expected: [Int: String] = olderApp.own
    for device in devices { expected.merge(device.own) { $1 } }
    for device in devices {
      #expect(device.stored == expected, "device \(device.index), seed \(seed)")
      #expect(device.folder.names == ["notes.json"], "device \(device.index) has no copies left")
    }
  }
}
