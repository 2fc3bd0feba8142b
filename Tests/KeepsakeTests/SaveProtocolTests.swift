import Foundation
import KeepsakeStress
import KeepsakeTesting
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The exact system calls of every durable write (data-safety rules "Writes are atomic and
/// durable" and "Processes that share a file lose nothing", DataSafety.md), recorded under the
/// real ``LocalFileSystem`` on a real folder.
///
/// Each test compares the whole log, in order, so removing or reordering a step of the protocol
/// fails it. Reads are left out of the logs: they change nothing on disk, and a file watcher may
/// make them at any moment.
@Suite("The durable save protocol")
struct SaveProtocolTests {
  /// The durable write of `name` in the log's folder: what every writer must do.
  ///
  /// `mode` is the mode of the file it replaces; without one, the file is new, and its folder is
  /// made first if it is missing (here it exists).
  static func durableWrite(_ name: String, bytes: Int, mode: String? = nil) -> [String] {
    (mode == nil ? ["mkdir . -> File exists"] : []) + [
      "open <tmp of \(name)> O_WRONLY|O_CREAT|O_EXCL"
    ] + (mode.map { ["fchmod <tmp of \(name)> \($0)"] } ?? []) + [
      "write <tmp of \(name)> 0..<\(bytes)",
      "fullfsync <tmp of \(name)>",
      "close <tmp of \(name)>",
      "rename <tmp of \(name)> \(name)",
      "open . O_RDONLY",
      "fullfsync .",
      "close .",
    ]
  }

  /// A key's save of `name` over the file it last read, whose mode is `mode`: the new file is
  /// swapped in (the check that what it replaces is that file and the replacement are one
  /// step), and what came out is removed before the folder is flushed.
  static func durableReplace(_ name: String, bytes: Int, mode: String) -> [String] {
    [
      "open <tmp of \(name)> O_WRONLY|O_CREAT|O_EXCL",
      "fchmod <tmp of \(name)> \(mode)",
      "write <tmp of \(name)> 0..<\(bytes)",
      "fullfsync <tmp of \(name)>",
      "close <tmp of \(name)>",
      "exchange <tmp of \(name)> \(name)",
      "unlink <tmp of \(name)>",
      "open . O_RDONLY",
      "fullfsync .",
      "close .",
    ]
  }

  /// The calls that write a new file `name` durably without replacing anything: as a save, but
  /// linked into place (a rename would replace a file of that name) and then unlinked.
  static func durableCreate(_ name: String, bytes: Int) -> [String] {
    [
      "mkdir . -> File exists",
      "open <tmp of \(name)> O_WRONLY|O_CREAT|O_EXCL",
      "write <tmp of \(name)> 0..<\(bytes)",
      "fullfsync <tmp of \(name)>",
      "close <tmp of \(name)>",
      "link <tmp of \(name)> \(name)",
      "unlink <tmp of \(name)>",
      "open . O_RDONLY",
      "fullfsync .",
      "close .",
    ]
  }

  @Test(
    "A save creates a temporary file beside the target, flushes it, renames it and flushes the folder"
  )
  func durableSave() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    chmod(url.path, 0o640)
    let recorder = SystemCallRecorder()
    let data = Data("the new value".utf8)
    try LocalFileSystem(calls: recorder.calls).writeAtomically(data, to: url)
    let log = ProtocolLog(recorder.records, folder: folder.url)
    #expect(log.lines == Self.durableWrite("drafts.json", bytes: data.count, mode: "640"))
    #expect(log.bytesWritten(to: "<tmp of drafts.json>") == data)
    #expect(log.writesInPlace(of: "drafts.json").isEmpty)
    #expect(try Data(contentsOf: url) == data)
    #expect(folder.names == ["drafts.json"])
  }

  @Test("The folder is flushed through the same full flush as the file")
  func folderFlushIsFull() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    let flushed = Mutex<[Int32]>([])
    let recorder = SystemCallRecorder()
    let recorded = recorder.calls
    // Only `fullFlush` reaches the disk here: a folder flushed any other way is not flushed.
    let calls = SystemCalls { call in
      if case .fullFlush(let fd) = call { flushed.withLock { $0.append(fd) } }
      return recorded.perform(call)
    }
    try LocalFileSystem(calls: calls).writeAtomically(Data("new".utf8), to: url)
    let opened = recorder.records.compactMap { record -> (String, Int32)? in
      guard case .open(let path, _, let fd) = record.call, fd >= 0 else { return nil }
      return (path, fd)
    }
    let folderPath = folder.url.resolvingSymlinksInPath().path
    let folderDescriptors = opened.filter { $0.0 == folderPath }.map(\.1)
    #expect(folderDescriptors.count == 1)
    #expect(flushed.withLock { $0 }.count == 2)
    #expect(flushed.withLock { $0 }.last == folderDescriptors.last)
  }

  @Test("A first save into a new folder flushes the folder's entry into its parent")
  func firstSaveIntoNewFolder() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("inbox/drafts.json")
    let recorder = SystemCallRecorder()
    let data = Data("first".utf8)
    try LocalFileSystem(calls: recorder.calls).writeAtomically(data, to: url)
    let log = ProtocolLog(recorder.records, folder: folder.url)
    #expect(
      log.lines
        == [
          "mkdir inbox",
          // NB: a new folder exists only once its entry in the parent is on disk.
          "open . O_RDONLY",
          "fullfsync .",
          "close .",
          "open inbox/<tmp of drafts.json> O_WRONLY|O_CREAT|O_EXCL",
          "write inbox/<tmp of drafts.json> 0..<\(data.count)",
          "fullfsync inbox/<tmp of drafts.json>",
          "close inbox/<tmp of drafts.json>",
          "rename inbox/<tmp of drafts.json> inbox/drafts.json",
          "open inbox O_RDONLY",
          "fullfsync inbox",
          "close inbox",
        ])
  }

  @Test(
    "A failed write or flush removes the temporary file and leaves the target untouched",
    arguments: [("write", EIO), ("fullfsync", EIO), ("write", ENOSPC), ("rename", EACCES)])
  func failureCleansUp(_ failing: String, _ code: Int32) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    let old = Data("old value".utf8)
    try old.write(to: url)
    let before = try LocalFileSystem().identity(of: url)
    let recorder = SystemCallRecorder { call in
      switch call {
      case .write where failing == "write": return code
      case .fsync(_, _) where failing == "fullfsync": return code
      case .rename where failing == "rename": return code
      default: return nil
      }
    }
    let data = Data("new value".utf8)
    #expect(throws: FileSystemError.self) {
      try LocalFileSystem(calls: recorder.calls).writeAtomically(data, to: url)
    }
    let log = ProtocolLog(recorder.records, folder: folder.url)
    let error = " -> \(String(cString: strerror(code)))"
    var expected = ["open <tmp of drafts.json> O_WRONLY|O_CREAT|O_EXCL"]
    expected.append("fchmod <tmp of drafts.json> \(Self.mode(of: url))")
    switch failing {
    case "write":
      expected += ["write <tmp of drafts.json> 0..<\(data.count)\(error)"]
    case "fullfsync":
      expected += [
        "write <tmp of drafts.json> 0..<\(data.count)", "fullfsync <tmp of drafts.json>\(error)",
      ]
    default:
      expected += [
        "write <tmp of drafts.json> 0..<\(data.count)", "fullfsync <tmp of drafts.json>",
      ]
    }
    expected.append("close <tmp of drafts.json>")
    if failing == "rename" { expected.append("rename <tmp of drafts.json> drafts.json\(error)") }
    expected.append("unlink <tmp of drafts.json>")
    #expect(log.lines == expected)
    #expect(try Data(contentsOf: url) == old)
    #expect(try LocalFileSystem().identity(of: url) == before, "the target was not touched")
    #expect(folder.names == ["drafts.json"], "no temporary file is left")
  }

  @Test(
    "A preferences suite is written under its lock, with a key's protocol: created, then swapped"
  )
  func preferencesSuite() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let recorder = SystemCallRecorder()
    let suite = FilePreferences(url: url, fileSystem: LocalFileSystem(calls: recorder.calls))
    let locked = ["open suite.json.lock O_RDONLY|O_CREAT", "flock suite.json.lock LOCK_EX|LOCK_NB"]
    let unlocked = ["flock suite.json.lock LOCK_UN", "close suite.json.lock"]
    recorder.clear()
    suite.set(.string("dark"), forKey: "theme")
    try suite.flush()
    var log = ProtocolLog(recorder.records, folder: folder.url)
    var bytes = try Data(contentsOf: url).count
    #expect(log.lines == locked + Self.durableCreate("suite.json", bytes: bytes) + unlocked)
    // NB: the second write swaps the new file in and checks what came out: a program that
    // replaced the file after this process read it is never written over.
    recorder.clear()
    suite.set(.string("light"), forKey: "theme")
    try suite.flush()
    log = ProtocolLog(recorder.records, folder: folder.url)
    bytes = try Data(contentsOf: url).count
    #expect(
      log.lines
        == locked + Self.durableReplace("suite.json", bytes: bytes, mode: "644") + unlocked)
    #expect(log.writesInPlace(of: "suite.json").isEmpty)
  }

  @Test("A quarantine copy is a second name of the damaged file, durable before it is replaced")
  func quarantineCopy() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("notes.json")
    let damaged = Data(#"[{"id": 1, "text": "cut off"#.utf8)
    try damaged.write(to: url)
    let mode = Self.mode(of: url)
    let recorder = SystemCallRecorder()
    let context = Self.context(recorder)
    let notes = StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .seconds(3600)), default: [Note(id: 7, text: "new")])
    }
    #expect(notes.loadError != nil)
    recorder.clear()
    let copy = try #require(try await notes.replaceUnreadableData())
    let log = ProtocolLog(
      recorder.records, folder: folder.url, names: [copy.lastPathComponent: "<quarantine>"])
    let saved = try Data(contentsOf: url).count
    #expect(
      log.lines
        == [
          // Nothing is read: the damaged file gets a second name, flushed with its folder.
          "link notes.json <quarantine>",
          "open . O_RDONLY",
          "fullfsync .",
          "close .",
          "open notes.json.lock O_RDONLY|O_CREAT",
          "flock notes.json.lock LOCK_EX|LOCK_NB",
        ] + Self.durableReplace("notes.json", bytes: saved, mode: mode) + [
          "flock notes.json.lock LOCK_UN",
          "close notes.json.lock",
        ])
    #expect(log.writesInPlace(of: "notes.json").isEmpty)
    #expect(try Data(contentsOf: copy) == damaged)
  }

  @Test("A conflict copy of the other process's version is durable before ours replaces it")
  func conflictCopy() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("settings.json")
    try JSONEncoder().encode(Settings(theme: "light", fontSize: 12)).write(to: url)
    let mode = Self.mode(of: url)
    let recorder = SystemCallRecorder()
    // NB: a key for each process: a key remembers what it last read or wrote, so copies of
    // one key would take each other's writes for their own.
    func key() -> FileStorageKey<Settings> { .fileStorage(url, saveInterval: .seconds(3600)) }
    let ours = StorageContext.withValue(Self.context(recorder)) {
      Shared(key(), default: Settings(theme: "", fontSize: 0))
    }
    let theirRecorder = SystemCallRecorder()
    let theirs = StorageContext.withValue(Self.context(theirRecorder)) {
      Shared(key(), default: Settings(theme: "", fontSize: 0))
    }
    // Ours is pending when theirs lands: the two cannot merge, so both are kept.
    ours.withLock { $0.theme = "dark" }
    theirs.withLock { $0.fontSize = 20 }
    try await theirs.save()
    // NB: what they wrote, from their log: our watcher may already have replaced it.
    let theirBytes = ProtocolLog(theirRecorder.records, folder: folder.url)
      .bytesWritten(to: "<tmp of settings.json>")
    try await ours.flush()
    let copy = try #require(
      folder.names.first { $0.hasPrefix("settings.conflict-") }.map(folder.file))
    let log = ProtocolLog(
      recorder.records, folder: folder.url, names: [copy.lastPathComponent: "<conflict>"])
    let saved = try Data(contentsOf: url).count
    // NB: the reference's first load and its watch happen before; only the save is compared.
    let save = Array(log.lines.drop { !$0.hasPrefix("open settings.json.lock") })
    #expect(
      save
        == [
          "open settings.json.lock O_RDONLY|O_CREAT",
          "flock settings.json.lock LOCK_EX|LOCK_NB",
        ] + Self.durableCreate("<conflict>", bytes: theirBytes.count)
        + Self.durableReplace("settings.json", bytes: saved, mode: mode) + [
          "flock settings.json.lock LOCK_UN",
          "close settings.json.lock",
        ])
    #expect(log.bytesWritten(to: "<tmp of <conflict>>") == theirBytes)
    #expect(log.writesInPlace(of: "settings.json").isEmpty)
    #expect(try Data(contentsOf: copy) == theirBytes)
  }

  @Test(
    "A file another program wrote while the save ran is swapped back under a name that keeps it")
  func swappedBack() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "one")]).write(to: url)
    let theirs = try JSONEncoder().encode([Note(id: 1, text: "one"), Note(id: 9, text: "editor")])
    let landed = Mutex(false)
    let recorder = SystemCallRecorder { call in
      // An editor that ignores the lock writes the file just before the save's swap.
      if case .exchange = call, !landed.withLock({ $0 }) {
        landed.withLock { $0 = true }
        try? theirs.write(to: url)
      }
      return nil
    }
    let notes = StorageContext.withValue(Self.context(recorder)) {
      Shared(.fileStorage(url, saveInterval: .seconds(3600)), default: [Note]())
    }
    recorder.clear()
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    let log = ProtocolLog(recorder.records, folder: folder.url)
    let first = Array(log.lines.drop { !$0.hasPrefix("exchange") }.prefix(6))
    let out = try #require(first.dropFirst().first?.split(separator: " ").last.map(String.init))
    #expect(out.contains(".keepsake-out-"), "named as what it is: another's file, to keep")
    #expect(
      first == [
        "exchange <tmp of notes.json> notes.json",
        "rename <tmp of notes.json> \(out)",
        "exchange \(out) notes.json",
        "unlink \(out)",
        "open . O_RDONLY",
        "fullfsync .",
      ])
    let saved = try JSONDecoder().decode([Note].self, from: Data(contentsOf: url))
    #expect(Set(saved.map(\.id)) == [1, 2, 9], "merged with what the editor wrote")
  }

  @Test("A transaction takes the lock first and releases it only after the folder is flushed")
  func transaction() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("counter.json")
    try JSONEncoder().encode(41).write(to: url)
    let mode = Self.mode(of: url)
    let recorder = SystemCallRecorder()
    let counter = StorageContext.withValue(Self.context(recorder)) {
      Shared(.fileStorage(url, saveInterval: .seconds(3600)), default: 0)
    }
    recorder.clear()
    let result = try await counter.update { value -> Int in
      value += 1
      return value
    }
    #expect(result == 42)
    let log = ProtocolLog(recorder.records, folder: folder.url)
    #expect(
      log.lines
        == [
          "open counter.json.lock O_RDONLY|O_CREAT",
          "flock counter.json.lock LOCK_EX|LOCK_NB",
        ] + Self.durableReplace("counter.json", bytes: 2, mode: mode) + [
          "flock counter.json.lock LOCK_UN",
          "close counter.json.lock",
        ])
    #expect(log.writesInPlace(of: "counter.json").isEmpty)
  }

  /// The permissions of the file at `url`, in octal, as the log shows them.
  static func mode(of url: URL) -> String {
    var info = stat()
    stat(url.path, &info)
    return String(info.st_mode & 0o7777, radix: 8)
  }

  /// A context on the real disk whose system calls `recorder` logs; isolated, so no exit flush
  /// is registered for it.
  static func context(_ recorder: SystemCallRecorder) -> StorageContext {
    StorageContext(
      name: "recorded", fileSystem: LocalFileSystem(calls: recorder.calls), isIsolated: true
    ) { _ in InMemoryPreferences() }
  }
}
