import Foundation
import Testing

@testable import Keepsake

@Suite("Two processes saving one file")
struct CrossProcessSaveTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/notes.json")
  let settingsURL = URL(fileURLWithPath: "/Users/someone/Library/settings.json")

  @Test("Inserts made by two processes from the same start are both kept")
  func bothInsertsKept() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    a.withLock { $0.append(Note(id: 1, text: "from A")) }
    b.withLock { $0.append(Note(id: 2, text: "from B")) }
    try await a.save()
    try await b.save()
    let stored = try #require(try world.stored([Note].self, at: url))
    #expect(Set(stored.map(\.id)) == [1, 2])
    #expect(Set(b.wrappedValue.map(\.id)) == [1, 2], "the merged value is the value in memory")
    try await a.flush()
    #expect(Set(a.wrappedValue.map(\.id)) == [1, 2], "A takes in B's merged save")
    let conflict = try #require(b.lastConflict)
    #expect(conflict.resolution == .merged(overlapping: []))
    #expect(conflict.url == url)
  }

  @Test("On the real disk, a key's own first read is not taken for another process's save")
  func ownReadIsNotAnOutsideChange() async throws {
    let disk = try RealDisk()
    let file = disk.file("title.json")
    try LocalFileSystem().writeAtomically(try JSONEncoder().encode("first"), to: file)
    let title = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process(), default: "")
    #expect(title.wrappedValue == "first")
    title.withLock { $0 = "second" }
    try await title.save()
    #expect(title.lastConflict == nil, "the file is the version the key read: no conflict")
    #expect(try JSONDecoder().decode(String.self, from: Data(contentsOf: file)) == "second")
    #expect(disk.folder.names.filter { !$0.hasSuffix(".lock") } == ["title.json"], "no copy kept")
  }

  @Test("A pending change meets an outside change as soon as it is seen, and both are kept")
  func pendingChangeMergesOnOutsideChange() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    let b = world.inSecond(.fileStorage(url), default: [Note]())
    a.withLock { $0.append(Note(id: 1, text: "pending in A")) }
    b.withLock { $0.append(Note(id: 2, text: "saved by B")) }
    try await b.save()
    // A's watcher was told during B's write; its reload is queued before this flush.
    try await a.flush()
    #expect(Set(a.wrappedValue.map(\.id)) == [1, 2])
    let stored = try #require(try world.stored([Note].self, at: url))
    #expect(Set(stored.map(\.id)) == [1, 2], "nothing B saved was written over")
  }

  @Test("An element changed by both processes keeps ours by default, and is reported")
  func bothChangedKeepsOurs() async throws {
    let world = TwoContexts()
    try world.disk.writeAtomically(
      try JSONEncoder().encode([Note(id: 1, text: "original"), Note(id: 2, text: "two")]),
      to: url)
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    a.withLock { $0[0].text = "A's edit" }
    b.withLock {
      $0[0].text = "B's edit"
      $0.removeLast()
    }
    try await b.save()
    try await a.save()
    let stored = try #require(try world.stored([Note].self, at: url))
    #expect(stored == [Note(id: 1, text: "A's edit")], "B's deletion of 2 is kept too")
    // The field changed on both sides is named, and B's version is kept beside the file.
    #expect(a.lastConflict?.resolution == .merged(overlapping: ["1.text"]))
    #expect(a.lastConflict?.copy != nil)
  }

  @Test("A merge declared on the key can prefer their version")
  func declaredMergePrefersTheirs() async throws {
    let world = TwoContexts()
    try world.disk.writeAtomically(
      try JSONEncoder().encode([Note(id: 1, text: "original")]), to: url)
    let key = FileStorageKey<[Note]>.fileStorage(
      url, saveInterval: .seconds(60), merge: .byID(preferring: .theirs))
    let a = world.inFirst(key, default: [])
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    a.withLock { $0[0].text = "A's edit" }
    b.withLock { $0[0].text = "B's edit" }
    try await b.save()
    try await a.save()
    #expect(try world.stored([Note].self, at: url) == [Note(id: 1, text: "B's edit")])
    #expect(a.wrappedValue == [Note(id: 1, text: "B's edit")])
  }

  @Test("A value that cannot merge keeps both: ours in the file, theirs in a conflict copy")
  func unmergeableKeepsBoth() async throws {
    let world = TwoContexts()
    let start = Settings(theme: "light", fontSize: 12)
    let a = world.inFirst(.fileStorage(settingsURL, saveInterval: .seconds(60)), default: start)
    let b = world.inSecond(.fileStorage(settingsURL, saveInterval: .seconds(60)), default: start)
    a.withLock { $0.theme = "dark" }
    b.withLock { $0.fontSize = 18 }
    try await b.save()
    try await a.save()

    #expect(
      try world.stored(Settings.self, at: settingsURL) == Settings(theme: "dark", fontSize: 12))
    let conflict = try #require(a.lastConflict)
    guard case .keptBoth(let copy) = conflict.resolution else {
      Issue.record("expected both versions kept, got \(conflict.resolution)")
      return
    }
    #expect(copy.deletingLastPathComponent() == settingsURL.deletingLastPathComponent())
    #expect(Quarantine.isCopy(named: copy.lastPathComponent))
    #expect(Quarantine.originalURL(of: copy) == settingsURL)
    let theirs = try JSONDecoder().decode(
      Settings.self, from: try #require(try world.disk.contents(of: copy)))
    #expect(theirs == Settings(theme: "light", fontSize: 18), "their version, whole")
    #expect(String(describing: conflict).contains(copy.path))
    #expect(String(describing: conflict).contains(settingsURL.path))
  }

  @Test("Two conflicts in the same second keep two conflict copies")
  func twoConflictCopies() async throws {
    let world = TwoContexts()
    let start = Settings(theme: "light", fontSize: 12)
    let a = world.inFirst(.fileStorage(settingsURL, saveInterval: .seconds(60)), default: start)
    let b = world.inSecond(.fileStorage(settingsURL, saveInterval: .seconds(60)), default: start)
    var copies: Set<URL> = []
    for round in 1...2 {
      a.withLock { $0.theme = "theme \(round)" }
      b.withLock { $0.fontSize = 12 + round }
      try await b.save()
      try await a.save()
      if case .keptBoth(let copy) = a.lastConflict?.resolution { copies.insert(copy) }
      try await b.flush()
    }
    #expect(copies.count == 2)
  }

  @Test("A file deleted by another process returns the value to its default")
  func outsideDeleteWithNothingPending() async throws {
    let disk = InMemoryFileSystem()
    let clock = StorageClock.manual()
    try disk.writeAtomically(try JSONEncoder().encode([Note(id: 1, text: "one")]), to: url)
    let a = StorageContext.withValue(.inMemory(name: "process A", fileSystem: disk, clock: clock)) {
      Shared(.fileStorage(url), default: [Note(id: 0, text: "default")])
    }
    #expect(a.wrappedValue == [Note(id: 1, text: "one")])
    disk.setContents(nil, at: url)
    try await a.flush()
    // NB: a removal is taken in once no file came back in its place for the replacement grace
    // (a sync engine removes a file, then renames the new one in).
    await clock.advance(by: PersistenceMachine.replacementGrace)
    #expect(a.wrappedValue == [Note(id: 0, text: "default")])
    #expect(try disk.contents(of: url) == nil, "nothing is written back")
  }

  @Test("A file deleted while a change is pending is written again, and the app is told")
  func outsideDeleteWithPendingChange() async throws {
    let world = TwoContexts()
    try world.disk.writeAtomically(try JSONEncoder().encode([Note(id: 1, text: "one")]), to: url)
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    a.withLock { $0.append(Note(id: 2, text: "pending")) }
    world.disk.setContents(nil, at: url)
    try await a.flush()
    #expect(try world.stored([Note].self, at: url)?.map(\.id) == [1, 2])
    #expect(a.lastConflict?.resolution == .deletedElsewhere)
  }

  @Test("A save that finds the file replaced by an unreadable one protects it")
  func replacedByUnreadableIsProtected() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    a.withLock { $0.append(Note(id: 1, text: "pending")) }
    let newer = Data(#"{"version": 99, "content": {}}"#.utf8)
    world.disk.setContents(newer, at: url, notifyingWatchers: false)
    await #expect(throws: SharedSaveError.self) { try await a.save() }
    guard case .protected? = a.saveError else {
      Issue.record("expected a protected save error, got \(String(describing: a.saveError))")
      return
    }
    #expect(a.loadError != nil)
    #expect(try world.disk.contents(of: url) == newer)
  }

  @Test("One key value used in two contexts keeps their files apart")
  func oneKeyValueTwoContexts() async throws {
    let world = TwoContexts()
    // NB: one value, as a `static let` key shared by two tests or two stores would be.
    let key = FileStorageKey<Settings>.fileStorage(settingsURL, saveInterval: .seconds(60))
    let start = Settings(theme: "light", fontSize: 12)
    let a = world.inFirst(key, default: start)
    let b = world.inSecond(key, default: start)
    a.withLock { $0.theme = "dark" }
    b.withLock { $0.fontSize = 20 }
    try await a.save()
    try await b.save()
    guard case .keptBoth(let copy)? = b.lastConflict?.resolution else {
      Issue.record("B must see A's write as another's, not its own")
      return
    }
    let kept = try JSONDecoder().decode(
      Settings.self, from: #require(try world.disk.contents(of: copy)))
    #expect(kept.theme == "dark", "A's version survives in the conflict copy")
  }

  @Test("Every writer is told: the process whose version was kept in a copy hears of it too")
  func otherWriterIsTold() async throws {
    let disk = try RealDisk()
    let file = disk.file("settings.json")
    try JSONEncoder().encode(Settings(theme: "light", fontSize: 12)).write(to: file)
    let a = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("A"),
      default: Settings(theme: "", fontSize: 0))
    let b = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("B"),
      default: Settings(theme: "", fontSize: 0))
    b.withLock { $0.fontSize = 20 }
    a.withLock { $0.theme = "dark" }
    try await a.save()
    // B saves over A's version, which it cannot merge with: A's is kept as a copy.
    try await b.save()
    guard case .keptBoth(let copy)? = b.lastConflict?.resolution else {
      Issue.record("B keeps both, got \(String(describing: b.lastConflict))")
      return
    }
    #expect(b.lastConflict?.keptByAnotherProcess == false)
    // A, whose version is in the copy, is told as well.
    #expect(await eventually { a.lastConflict?.keptByAnotherProcess == true })
    guard case .keptBoth(let told)? = a.lastConflict?.resolution else {
      Issue.record("A is told of the copy, got \(String(describing: a.lastConflict))")
      return
    }
    #expect(told.lastPathComponent == copy.lastPathComponent)
  }

  @Test("Every writer is told: a process that opens the key later hears of a copy kept beside it")
  func laterWriterIsTold() async throws {
    let disk = try RealDisk()
    let file = disk.file("settings.json")
    try JSONEncoder().encode(Settings(theme: "light", fontSize: 12)).write(to: file)
    do {
      // A command-line tool saves its change and ends; the app saves over it and keeps it.
      let tool = disk.shared(
        .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("tool"),
        default: Settings(theme: "", fontSize: 0))
      let app = disk.shared(
        .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("app"),
        default: Settings(theme: "", fontSize: 0))
      app.withLock { $0.fontSize = 20 }
      tool.withLock { $0.theme = "dark" }
      try await tool.save()
      try await app.save()
      guard case .keptBoth? = app.lastConflict?.resolution else {
        Issue.record("the app keeps both, got \(String(describing: app.lastConflict))")
        return
      }
    }
    let copies = disk.folder.names.filter { $0.contains(".conflict-") }
    #expect(copies.count == 1)
    // The tool runs again: it hears of the copy at once, from the file's folder.
    let again = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process("tool, again"),
      default: Settings(theme: "", fontSize: 0))
    #expect(await eventually { again.lastConflict != nil })
    guard case .keptBoth(let told)? = again.lastConflict?.resolution else {
      Issue.record("told of the copy, got \(String(describing: again.lastConflict))")
      return
    }
    #expect(told.lastPathComponent == copies.first)
    #expect(again.lastConflict?.keptByAnotherProcess == true)
  }
}
