import Foundation
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

/// Changes a file cannot take (it cannot be read, or is from a newer version) are kept durably
/// the moment their save is refused, and merged into the file by the next process that can.
@Suite("Changes kept when their save is refused")
struct UnsavedChangeTests {
  func unsavedCopies(in disk: RealDisk) -> [String] {
    disk.folder.names.filter { $0.contains(".unsaved-") }
  }

  @Test("A change refused because the file cannot be read is on disk at once, not only in memory")
  func refusedChangeIsKept() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let newer = Data(#"{"version": 99, "content": []}"#.utf8)
    try newer.write(to: file)
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process(), default: [Note]())
    #expect(notes.loadError != nil)
    notes.withLock { $0.append(Note(id: 2, text: "made by the older app")) }
    await #expect(throws: SharedSaveError.self) { try await notes.save() }
    #expect(try Data(contentsOf: file) == newer, "the file it cannot read is untouched")
    let kept = try #require(unsavedCopies(in: disk).first)
    let text = try String(contentsOf: disk.file(kept), encoding: .utf8)
    #expect(text.contains("made by the older app"), "the change itself is in the kept file")
    // A second refusal replaces the kept change, never adds a second one: a new copy, holding
    // both changes, takes the first one's place (a copy is never written again once made).
    notes.withLock { $0.append(Note(id: 3, text: "and another")) }
    await #expect(throws: SharedSaveError.self) { try await notes.save() }
    let copies = unsavedCopies(in: disk)
    #expect(copies.count == 1)
    let second = try String(contentsOf: disk.file(try #require(copies.first)), encoding: .utf8)
    #expect(second.contains("made by the older app") && second.contains("and another"))
  }

  @Test("The next process that can read the file merges the kept change into it, and removes it")
  func nextProcessMergesTheKeptChange() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try Data(#"[{"id": 1, "text": "cut off"#.utf8).write(to: file)
    do {
      let notes = disk.shared(
        .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("old"), default: [Note]())
      notes.withLock { $0.append(Note(id: 2, text: "kept")) }
      await #expect(throws: SharedSaveError.self) { try await notes.save() }
    }
    #expect(unsavedCopies(in: disk).count == 1)
    // Someone repairs the file (or a newer version migrates it); then a process opens the key.
    try JSONEncoder().encode([Note(id: 1, text: "repaired")]).write(to: file)
    let later = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("new"), default: [Note]())
    try await later.load()
    let stored = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    #expect(Set(stored.map(\.id)) == [1, 2], "the kept change is merged into the file")
    #expect(Set(later.wrappedValue.map(\.id)) == [1, 2])
    #expect(unsavedCopies(in: disk).isEmpty, "and no longer kept beside it")
  }

  @Test("A change whose save is refused and later succeeds leaves nothing beside the file")
  func keptChangeRemovedOnceSaved() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try Data(#"[{"id": 1, "text": "cut off"#.utf8).write(to: file)
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process(), default: [Note]())
    notes.withLock { $0.append(Note(id: 2, text: "pending")) }
    await #expect(throws: SharedSaveError.self) { try await notes.save() }
    #expect(unsavedCopies(in: disk).count == 1)
    try JSONEncoder().encode([Note(id: 1, text: "repaired")]).write(to: file)
    try await notes.load()
    try await notes.flush()
    let stored = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    #expect(Set(stored.map(\.id)) == [1, 2])
    #expect(unsavedCopies(in: disk).isEmpty)
  }

  /// The older app's reference of `file`, which the newer app wrote (one note) and closed.
  func olderAppOverANewerFile(_ file: URL, on disk: RealDisk) throws -> Shared<[OldNote]> {
    try FileStorageKey<[Note]>.fileStorage(file, format: NotesFormat.self)
      .save([Note(id: 1, text: "from the newer app")], in: disk.process("newer"))
    return disk.shared(
      .fileStorage(file, format: OldNotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("older"), default: [OldNote]())
  }

  @Test("A process already open merges the change an older version kept, as it appears")
  func openProcessMergesKeptChange() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let newer = disk.shared(
      .fileStorage(file, format: NotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("newer"), default: [Note]())
    newer.withLock { $0 = [Note(id: 1, text: "from the newer app")] }
    try await newer.save()
    let older = disk.shared(
      .fileStorage(file, format: OldNotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("older"), default: [OldNote]())
    older.withLock { $0.append(OldNote(id: 2, body: "from the older app")) }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    // The newer process, open all along, is not asked to load: it sees the copy and merges it.
    #expect(
      await waitUntil(timeout: .seconds(60)) {
        newer.wrappedValue.count == 2 && unsavedCopies(in: disk).isEmpty
      })
    #expect(newer.wrappedValue.texts == [1: "from the newer app", 2: "from the older app"])
    let stored = try Data(contentsOf: file)
    #expect(try NotesFormat.decode(stored).texts == newer.wrappedValue.texts)
    #expect(NotesFormat.version(of: stored).version == 2)

    // The older version deletes what it added: its next kept change is made on the copy that
    // was merged, so the deletion is a change, and the newer process takes it in too.
    older.withLock { $0.removeAll { $0.id == 2 } }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    #expect(
      await waitUntil(timeout: .seconds(60)) {
        newer.wrappedValue.count == 1 && unsavedCopies(in: disk).isEmpty
      })
    #expect(newer.wrappedValue.texts == [1: "from the newer app"])
  }

  @Test("An older version's change to a newer file is kept in its own version, then merged")
  func olderVersionsChangeIsMerged() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    // The newer app (format version 2) wrote the file, and ended (one still open would merge
    // the kept change as it appears: see the test above). The older app (version 1) cannot read
    // it, and refuses to save over it.
    let older = try olderAppOverANewerFile(file, on: disk)
    #expect(older.loadError != nil)
    older.withLock { $0.append(OldNote(id: 2, body: "from the older app")) }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    #expect(unsavedCopies(in: disk).count == 1, "kept beside the file, at once")
    // The newer app, opening the key again, migrates the kept change and merges it.
    let later = disk.shared(
      .fileStorage(file, format: NotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("newer, later"), default: [Note]())
    try await later.load()
    let stored = try Data(contentsOf: file)
    let notes = try NotesFormat.decode(stored)
    #expect(notes.texts == [1: "from the newer app", 2: "from the older app"])
    #expect(NotesFormat.version(of: stored).version == 2, "the file stays at the newer version")
    #expect(unsavedCopies(in: disk).isEmpty)
  }

  @Test(
    "An older version's later change undoes its earlier one even where the earlier was merged before its copy went"
  )
  func laterChangeAfterTheEarlierWasMergedElsewhere() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let older = try olderAppOverANewerFile(file, on: disk)
    older.withLock { $0.append(OldNote(id: 2, body: "from the older app")) }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    #expect(unsavedCopies(in: disk).count == 1)
    // Another device's newer app merged that kept change into the file; the copy's removal has
    // not reached this device yet (a sync engine carries the file and the removal apart).
    try NotesFormat.encode([
      Note(id: 1, text: "from the newer app"), Note(id: 2, text: "from the older app"),
    ]).write(to: file)
    #expect(unsavedCopies(in: disk).count == 1)
    // The older app deletes what it added: a change of its own since the copy was made.
    older.withLock { $0.removeAll { $0.id == 2 } }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    let later = disk.shared(
      .fileStorage(file, format: NotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("newer, later"), default: [Note]())
    try await later.load()
    let notes = try NotesFormat.decode(try Data(contentsOf: file))
    #expect(notes.texts == [1: "from the newer app"], "the deletion is taken in, not undone")
    #expect(unsavedCopies(in: disk).isEmpty)
  }

  /// An in-memory disk whose `/sync/notes.json` holds note 1 (plain JSON), with changes an older
  /// version kept beside it: `(name, change, steps)`, each made on note 1.
  func fileWithKeptChanges(
    _ changes: [(name: String, change: [Note], steps: [[Note]])]
  ) throws -> (disk: InMemoryFileSystem, file: URL) {
    let disk = InMemoryFileSystem()
    let file = URL(fileURLWithPath: "/sync/notes.json")
    let encoder = JSONEncoder()
    disk.setContents(try encoder.encode(one), at: file)
    for (name, change, steps) in changes {
      var kept = UnsavedChange(
        reason: "refused", change: try encoder.encode(change), base: try encoder.encode(one))
      kept.steps = try steps.map { UnsavedChange.Text(try encoder.encode($0)) }
      disk.setContents(
        try UnsavedChange.encoder.encode(kept),
        at: file.deletingLastPathComponent().appendingPathComponent(name))
    }
    return (disk, file)
  }

  let one = [Note(id: 1, text: "one")]
  let two = [Note(id: 1, text: "one"), Note(id: 2, text: "two")]

  @Test("Two kept changes of one writer are taken in oldest first, whatever order the folder lists")
  func keptChangesOldestFirst() async throws {
    // An older version added note 2 and kept the change; then it deleted note 2 and kept that,
    // with the first change as its step, in the same second: `-2`, which sorts first by name.
    // The first copy's removal has not arrived yet.
    let (disk, file) = try fileWithKeptChanges([
      ("notes.unsaved-20261206T120000Z.json", two, []),
      ("notes.unsaved-20261206T120000Z-2.json", one, [two]),
    ])
    let context = StorageContext.inMemory(name: "newer", fileSystem: disk)
    let notes = StorageContext.withValue(context) {
      Shared(.fileStorage(file, saveInterval: .seconds(60)), default: [Note]())
    }
    try await notes.load()
    #expect(notes.wrappedValue == one, "note 2, deleted last, stays deleted")
    #expect(
      try JSONDecoder().decode([Note].self, from: try #require(try disk.contents(of: file))) == one)
    let folder = file.deletingLastPathComponent()
    #expect(try disk.contentsOfDirectory(at: folder).allSatisfy { !$0.contains(".unsaved-") })
  }

  @Test("A key with no size limit takes in a kept change: its read limit does not overflow")
  func keptChangeWithoutSizeLimit() async throws {
    let (disk, file) = try fileWithKeptChanges([("notes.unsaved-20261206T120000Z.json", two, [])])
    let context = StorageContext.inMemory(name: "unlimited", fileSystem: disk)
    let notes = StorageContext.withValue(context) {
      Shared(.fileStorage(file, maximumFileSize: .max), default: [Note]())
    }
    try await notes.load()
    #expect(notes.wrappedValue == two)
  }

  @Test("A kept change holds the earlier values it replaced, the oldest going first past the size")
  func stepsStayWithinTheLargestFile() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try FileStorageKey<[Note]>.fileStorage(file, format: NotesFormat.self)
      .save([Note(id: 1, text: "from the newer app")], in: disk.process("newer"))
    let older = disk.shared(
      .fileStorage(
        file, format: OldNotesFormat.self, saveInterval: .seconds(60), maximumFileSize: 700),
      in: disk.process("older"), default: [OldNote]())
    for id in 2...6 {
      older.withLock { $0.append(OldNote(id: id, body: String(repeating: "x", count: 30))) }
      await #expect(throws: SharedSaveError.self) { try await older.save() }
    }
    let kept = try #require(unsavedCopies(in: disk).first)
    let change = try JSONDecoder().decode(
      UnsavedChange.self, from: try Data(contentsOf: disk.file(kept)))
    let steps = try (change.steps ?? []).map { try OldNotesFormat.decode(try #require($0.bytes)) }
    // Four earlier values of one to four notes: not all fit in 700 bytes beside the change and
    // its base, and the oldest went first.
    #expect((1..<4).contains(steps.count), "some earlier values, not all: \(steps.map(\.count))")
    #expect(steps.map(\.count) == Array((5 - steps.count)...4), "the newest ones, oldest first")
    let total =
      try [change.changeData, change.baseData ?? Data()].map(\.count).reduce(0, +)
      + (change.steps ?? []).map { $0.bytes?.count ?? 0 }.reduce(0, +)
    #expect(total <= 700)
  }

  @Test("A refused save with nothing new since the last one keeps no second copy")
  func refusedAgainKeepsNothingMore() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let older = try olderAppOverANewerFile(file, on: disk)
    older.withLock { $0.append(OldNote(id: 2, body: "note 2")) }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    let first = try #require(unsavedCopies(in: disk).first)
    // The coalesced save of the same change, or the app asking again: refused again, and the
    // change is kept already.
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    #expect(unsavedCopies(in: disk) == [first], "the same copy, not another")
    let change = try JSONDecoder().decode(
      UnsavedChange.self, from: try Data(contentsOf: disk.file(first)))
    #expect((change.steps ?? []).isEmpty, "no earlier value: nothing came before this change")
    older.withLock { $0.append(OldNote(id: 3, body: "note 3")) }
    await #expect(throws: SharedSaveError.self) { try await older.save() }
    let second = try #require(unsavedCopies(in: disk).first)
    let changed = try JSONDecoder().decode(
      UnsavedChange.self, from: try Data(contentsOf: disk.file(second)))
    #expect(second != first && changed.steps?.count == 1, "a change since is kept, with one step")
  }

  @Test("A kept change whose earlier step was damaged by hand still merges, whole")
  func damagedStepLeftOut() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let older = try olderAppOverANewerFile(file, on: disk)
    for id in 2...3 {
      older.withLock { $0.append(OldNote(id: id, body: "note \(id)")) }
      await #expect(throws: SharedSaveError.self) { try await older.save() }
    }
    let kept = disk.file(try #require(unsavedCopies(in: disk).first))
    var change = try JSONDecoder().decode(UnsavedChange.self, from: try Data(contentsOf: kept))
    #expect(change.steps?.count == 1)
    change.steps = [UnsavedChange.Text(Data("not a value".utf8))]
    try UnsavedChange.encoder.encode(change).write(to: kept)
    let later = disk.shared(
      .fileStorage(file, format: NotesFormat.self, saveInterval: .seconds(60)),
      in: disk.process("newer, later"), default: [Note]())
    try await later.load()
    let notes = try NotesFormat.decode(try Data(contentsOf: file))
    #expect(notes.texts == [1: "from the newer app", 2: "note 2", 3: "note 3"])
    #expect(unsavedCopies(in: disk).isEmpty)
  }
}
