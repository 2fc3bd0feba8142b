import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that other programs replace while a change is pending.
///
/// They remove the file and put a new one in its place (Syncthing, `rm` then `cp`), or write it
/// while a save is under way without taking the lock (editors, scripts). Nothing either side
/// saved is lost.
@Suite("Files other programs replace")
struct ReplacedFileTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/notes.json")

  /// A reference with a 100 ms save interval on a manual clock, over `disk`.
  func notes(
    on disk: InMemoryFileSystem, clock: StorageClock, default value: [Note] = []
  ) -> Shared<[Note]> {
    let context = StorageContext.inMemory(name: "app", fileSystem: disk, clock: clock)
    return StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .milliseconds(100)), default: value)
    }
  }

  func encoded(_ notes: [Note]) throws -> Data { try JSONEncoder().encode(notes) }

  /// A file of note 1 and a reference of it with note 2 added, pending.
  func pendingChange() throws -> (InMemoryFileSystem, StorageClock, Shared<[Note]>) {
    let disk = InMemoryFileSystem()
    let clock = StorageClock.manual()
    try disk.writeAtomically(try encoded([Note(id: 1, text: "one")]), to: url)
    let notes = notes(on: disk, clock: clock)
    notes.withLock { $0.append(Note(id: 2, text: "pending")) }
    return (disk, clock, notes)
  }

  func stored(_ disk: InMemoryFileSystem) throws -> [Int]? {
    guard let data = try disk.contents(of: url) else { return nil }
    return try JSONDecoder().decode([Note].self, from: data).map(\.id)
  }

  @Test("A file removed then put back while a change is pending: the change merges into it")
  func removedThenPutBack() async throws {
    let (disk, clock, notes) = try pendingChange()
    // The other program removes the file; its new one is on its way.
    disk.setContents(nil, at: url)
    await clock.advance(by: .milliseconds(100))
    #expect(try stored(disk) == nil, "the save waits: it neither writes under nor over it")
    // It lands (the other device added note 3), within the grace.
    try disk.writeAtomically(
      try encoded([Note(id: 1, text: "one"), Note(id: 3, text: "theirs")]), to: url)
    await clock.advance(by: .milliseconds(1))
    #expect(try stored(disk).map(Set.init) == [1, 2, 3], "ours merged into theirs")
    #expect(Set(notes.wrappedValue.map(\.id)) == [1, 2, 3])
    #expect(notes.saveError == nil)
    guard case .merged? = notes.lastConflict?.resolution else {
      Issue.record("expected a merge, got \(String(describing: notes.lastConflict))")
      return
    }
    // The grace's end finds nothing to do.
    let writes = disk.completedWrites(of: url)
    await clock.advance(by: PersistenceMachine.replacementGrace)
    #expect(disk.completedWrites(of: url) == writes)
  }

  /// A file of note 1 and a reference of it, the file just removed by a program replacing it,
  /// and `request` (a save or a load) made while the name is empty.
  func askedWhileRemoved(
    _ request: @Sendable (Shared<[Note]>) async throws -> Void
  ) async throws -> (InMemoryFileSystem, StorageClock, Shared<[Note]>) {
    let disk = InMemoryFileSystem()
    let clock = StorageClock.manual()
    try disk.writeAtomically(try encoded([Note(id: 1, text: "one")]), to: url)
    let notes = notes(on: disk, clock: clock)
    // The other program removes the file (its new one is on its way), and the app asks.
    disk.setContents(nil, at: url)
    await clock.settle()
    try await request(notes)
    return (disk, clock, notes)
  }

  @Test(
    "save() or load() while the file is gone for a moment keeps the value; a change waits for it",
    arguments: ["save", "load"])
  func askedWhileRemovedThenChange(_ request: String) async throws {
    let (disk, clock, notes) = try await askedWhileRemoved { notes in
      if request == "save" { try await notes.save() } else { try await notes.load() }
    }
    #expect(notes.wrappedValue.map(\.id) == [1], "the removal is not taken in within the grace")
    #expect(try stored(disk) == nil, "nothing is written into the emptied name")
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    await clock.advance(by: .milliseconds(100))
    #expect(try stored(disk) == nil, "the change's save waits for the file")
    // It lands (the other device added note 3), within the grace.
    try disk.writeAtomically(
      try encoded([Note(id: 1, text: "one"), Note(id: 3, text: "theirs")]), to: url)
    await clock.advance(by: .milliseconds(1))
    #expect(try stored(disk).map(Set.init) == [1, 2, 3], "ours merged into theirs")
  }

  @Test("A file removed for good, loaded within the grace, is taken in when the grace ends")
  func loadThenRemovedForGood() async throws {
    let (disk, clock, notes) = try await askedWhileRemoved { try await $0.load() }
    #expect(notes.wrappedValue.map(\.id) == [1])
    await clock.advance(by: PersistenceMachine.replacementGrace)
    #expect(notes.wrappedValue.isEmpty, "removed for good: the default")
    #expect(try stored(disk) == nil, "and nothing written")
  }

  @Test("A file removed and not put back is written again once the grace is over")
  func removedAndNotPutBack() async throws {
    let (disk, clock, notes) = try pendingChange()
    // Seen at once (the watch), so the grace starts now.
    disk.setContents(nil, at: url)
    await clock.advance(by: PersistenceMachine.replacementGrace - .milliseconds(1))
    #expect(try stored(disk) == nil, "still within the grace")
    await clock.advance(by: .milliseconds(1))
    #expect(try stored(disk) == [1, 2])
    #expect(notes.lastConflict?.resolution == .deletedElsewhere, "the app is told")
  }

  /// A file of note 1, a reference of it with nothing pending, and the file just removed.
  func removedWithNothingPendingSetUp() throws -> (InMemoryFileSystem, StorageClock, Shared<[Note]>)
  {
    let disk = InMemoryFileSystem()
    let clock = StorageClock.manual()
    try disk.writeAtomically(try encoded([Note(id: 1, text: "one")]), to: url)
    let notes = notes(on: disk, clock: clock)
    disk.setContents(nil, at: url)
    return (disk, clock, notes)
  }

  @Test("A file removed with nothing pending keeps its value through the grace, and is put back")
  func removedWithNothingPendingThenPutBack() async throws {
    let (disk, clock, notes) = try removedWithNothingPendingSetUp()
    await clock.advance(by: .milliseconds(100))
    #expect(notes.wrappedValue.map(\.id) == [1], "not taken for deleted within the grace")
    // A save asked for meanwhile writes the value as it was, with its change.
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    #expect(try stored(disk) == [1, 2], "never a file of the change alone")
  }

  @Test("A file removed with nothing pending, and not put back, is taken in after the grace")
  func removedWithNothingPending() async throws {
    let (disk, clock, notes) = try removedWithNothingPendingSetUp()
    await clock.advance(by: PersistenceMachine.replacementGrace - .milliseconds(1))
    #expect(notes.wrappedValue.map(\.id) == [1])
    await clock.advance(by: .milliseconds(1))
    #expect(notes.wrappedValue.isEmpty, "removed for good: the value is the default")
    #expect(try stored(disk) == nil, "and nothing is written")
  }

  @Test("A flush during the grace ends it: the change is on disk when the flush returns")
  func flushEndsTheGrace() async throws {
    let (disk, clock, notes) = try pendingChange()
    disk.setContents(nil, at: url)
    await clock.advance(by: .milliseconds(100))
    #expect(try stored(disk) == nil)
    try await notes.flush()
    #expect(try stored(disk) == [1, 2])
  }

  @Test("A change made during the grace waits with it, and is written at its end")
  func changeDuringTheGrace() async throws {
    let (disk, clock, notes) = try pendingChange()
    disk.setContents(nil, at: url)
    await clock.advance(by: .milliseconds(100))
    notes.withLock { $0.append(Note(id: 3, text: "later")) }
    await clock.advance(by: .milliseconds(100))
    #expect(try stored(disk) == nil, "its save finds the grace under way")
    await clock.advance(by: PersistenceMachine.replacementGrace)
    #expect(try stored(disk) == [1, 2, 3])
  }

  // MARK: - The real disk

  /// The live system calls, with `exchange` and `link` run through the given hooks.
  static func calls(
    exchange: @escaping @Sendable (String, String) -> Int32 = { SystemCalls.live.exchange($0, $1) },
    link: @escaping @Sendable (String, String) -> Int32 = { SystemCalls.live.link($0, $1) }
  ) -> SystemCalls {
    let live = SystemCalls.live
    return SystemCalls { call in
      switch call {
      case .exchange(let first, let second): Int(exchange(first, second))
      case .link(let from, let to): Int(link(from, to))
      default: live.perform(call)
      }
    }
  }

  func context(_ calls: SystemCalls) -> StorageContext {
    .inMemory(name: "app", fileSystem: LocalFileSystem(calls: calls), clock: .manual())
  }

  func read(_ file: URL) throws -> [Int] {
    try JSONDecoder().decode([Note].self, from: Data(contentsOf: file)).map(\.id)
  }

  @Test(
    "A program that writes the file while a save swaps it in loses nothing: swapped back, merged")
  func writerBetweenCheckAndSwap() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "one")]).write(to: file)
    let landed = Mutex(false)
    let calls = Self.calls(exchange: { first, second in
      landed.withLock { landed in
        guard !landed else { return }
        landed = true
        // An editor ignoring the lock writes the file in place, between the save's look at it
        // and its swap.
        let theirs = try? JSONEncoder().encode([
          Note(id: 1, text: "one"), Note(id: 9, text: "editor"),
        ])
        try? theirs?.write(to: URL(fileURLWithPath: second))
      }
      return SystemCalls.live.exchange(first, second)
    })
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: context(calls), default: [Note]())
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    #expect(landed.withLock { $0 })
    #expect(Set(try read(file)) == [1, 2, 9], "the editor's note and ours are both in the file")
    #expect(notes.saveError == nil)
    guard case .merged? = notes.lastConflict?.resolution else {
      Issue.record("expected a merge, got \(String(describing: notes.lastConflict))")
      return
    }
    #expect(
      disk.folder.names.filter { !$0.hasSuffix(".lock") } == ["notes.json"],
      "nothing swapped out is left behind")
  }

  @Test("A program that creates the file at the instant of a first save wins, and is merged")
  func creatorAtTheFirstSave() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    let created = Mutex(false)
    let calls = Self.calls(link: { from, to in
      created.withLock { created in
        guard !created, to == file.path else { return }
        created = true
        // `git checkout` creating the file exclusively, just before the save names its own.
        let theirs = try? JSONEncoder().encode([Note(id: 7, text: "checked out")])
        _ = FileManager.default.createFile(atPath: to, contents: theirs)
      }
      return SystemCalls.live.link(from, to)
    })
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: context(calls), default: [Note]())
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    #expect(created.withLock { $0 })
    #expect(Set(try read(file)) == [2, 7])
  }

  @Test("A folder removed after the key wrote its file is not created again; the change stays")
  func removedFolderIsNotRecreated() async throws {
    let disk = try RealDisk()
    let folder = disk.file("store")
    let file = folder.appendingPathComponent("notes.json")
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process(), default: [Note]())
    notes.withLock { $0.append(Note(id: 1, text: "one")) }
    try await notes.save()
    notes.withLock { $0.append(Note(id: 2, text: "two")) }
    // Gone in one step (moved out, then removed), as the key sees a removal.
    let gone = disk.file("gone")
    try FileManager.default.moveItem(at: folder, to: gone)
    try FileManager.default.removeItem(at: gone)
    await #expect(throws: SharedSaveError.self) { try await notes.save() }
    #expect(!FileManager.default.fileExists(atPath: folder.path), "the folder stays removed")
    #expect(notes.wrappedValue.map(\.id) == [1, 2], "the change is kept in memory")
    guard case .writeFailed(_, let underlying as FileSystemError)? = notes.saveError else {
      Issue.record("expected a write error, got \(String(describing: notes.saveError))")
      return
    }
    #expect(underlying.reason == .folderRemoved)
  }

  /// Writes `data` into the file in place (same inode), then puts its times back.
  static func overwriteKeepingTime(_ file: URL, with data: Data) throws {
    var info = stat()
    try #require(stat(file.path, &info) == 0)
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: data)
    try handle.close()
    #if canImport(Darwin)
      var times = [info.st_atimespec, info.st_mtimespec]
    #else
      var times = [info.st_atim, info.st_mtim]
    #endif
    try #require(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
    var after = stat()
    try #require(stat(file.path, &after) == 0)
    try #require(after.st_ino == info.st_ino && after.st_size == info.st_size)
  }

  @Test("An edit that keeps the size and puts the time back (cp -p) is seen, not written over")
  func sameSizeEditWithTimePutBack() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "aaaa")]).write(to: file)
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: disk.process(), default: [Note]())
    #expect(notes.wrappedValue == [Note(id: 1, text: "aaaa")])
    // The same size, written in place, its modification time put back to the nanosecond, as
    // `cp -p` onto the file does.
    try Self.overwriteKeepingTime(file, with: JSONEncoder().encode([Note(id: 1, text: "bbbb")]))
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    let saved = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    #expect(saved.first?.text == "bbbb", "their edit is kept")
    #expect(saved.map(\.id) == [1, 2])
  }

  /// The real disk as a file system that keeps whole seconds only (FAT, HFS+, many network
  /// shares) shows it: every time is one whole second, an hour ahead of this machine's clock (a
  /// share's clock may be), so every edit of the test falls within it.
  struct WholeSecondDisk: FileSystem {
    let disk = LocalFileSystem()
    let second = (Int64(Date().timeIntervalSince1970) + 3_600) * 1_000_000_000

    func identity(of url: URL) throws -> FileIdentity? {
      try disk.identity(of: url).map {
        FileIdentity(inode: $0.inode, size: $0.size, modified: second, changed: second)
      }
    }
    func contents(of url: URL, maximumSize: Int) throws -> Data? {
      try disk.contents(of: url, maximumSize: maximumSize)
    }
    func writeAtomically(_ data: Data, to url: URL) throws {
      try disk.writeAtomically(data, to: url)
    }
    func removeItem(at url: URL) throws { try disk.removeItem(at: url) }
    func contentsOfDirectory(at url: URL) throws -> [String] {
      try disk.contentsOfDirectory(at: url)
    }
    func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
      nil
    }
    func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
      try disk.lockExclusively(url, timeout: timeout)
    }
  }

  @Test("On whole-second times, a same-size edit within the second is seen by its bytes")
  func sameSizeEditWithinTheSecond() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "aaaa")]).write(to: file)
    let context = StorageContext.inMemory(
      name: "whole seconds", fileSystem: WholeSecondDisk(), clock: .manual())
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: context, default: [Note]())
    #expect(notes.wrappedValue == [Note(id: 1, text: "aaaa")])
    // In place, the same size: inode, size and both times as the key last saw them.
    let handle = try FileHandle(forWritingTo: file)
    try handle.write(contentsOf: JSONEncoder().encode([Note(id: 1, text: "bbbb")]))
    try handle.close()
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    let saved = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    #expect(saved.first?.text == "bbbb", "their edit is kept")
    #expect(saved.map(\.id) == [1, 2])
  }
}
