import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

/// A program that writes a key's file in place (`cp`, a script's `>`) truncates it, then writes
/// it: a key that reads between the two reads the version the program finishes, rather than
/// calling the file unreadable (data-safety rule "Processes that share a file lose nothing").
@Suite("A file a program is writing in place")
struct InPlaceWriteTests {
  /// A disk on which a program writes a file in place: ``truncate(finishingWith:landsAfter:)``
  /// empties it, and the program's write lands right after the key's next read
  /// (`landsAfter: .read`) or after the key has looked at the file a number of times since
  /// (`landsAfter: .looks(n)`).
  final class ProgramWritingInPlace: ForwardingFileSystem, @unchecked Sendable {
    enum Landing {
      case read
      case looks(Int)
    }

    private struct Writes {
      var finished: [Data] = []
      var landing = Landing.read
      var reads = 0
      var looks = 0
    }

    // NB: the mutable state is behind its Mutex; `base` and `url` are immutable and Sendable.
    private let writes = Mutex(Writes())
    let url: URL

    init(_ base: any FileSystem, url: URL) {
      self.url = url
      super.init(base)
    }

    /// The reads of the file since it was truncated.
    var reads: Int { writes.withLock { $0.reads } }

    /// The writes asked for, each in place of the version it names.
    private let swaps = Mutex(0)
    var writesAsked: Int { swaps.withLock { $0 } }

    override func replaceAtomically(
      _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
    ) throws -> FileIdentity? {
      swaps.withLock { $0 += 1 }
      return try super.replaceAtomically(
        data, at: url, expecting: expected, creatingFolder: creatingFolder)
    }

    /// Empties the file, as a program about to write it does; `finished` are the versions it
    /// then writes, each followed by another truncation but the last.
    func truncate(finishingWith finished: [Data], landsAfter landing: Landing) throws {
      try base.writeAtomically(Data(), to: url)
      writes.withLock { $0 = Writes(finished: finished, landing: landing) }
    }

    override func contents(of url: URL, maximumSize: Int) throws -> Data? {
      let data = try base.contents(of: url, maximumSize: maximumSize)
      guard url.path == self.url.path else { return data }
      let lands = writes.withLock { writes -> Bool in
        writes.reads += 1
        writes.looks = 0
        guard case .read = writes.landing else { return false }
        return !writes.finished.isEmpty
      }
      if lands { try land() }
      return data
    }

    override func identity(of url: URL) throws -> FileIdentity? {
      let lands = writes.withLock { writes -> Bool in
        guard url.path == self.url.path, case .looks(let count) = writes.landing,
          !writes.finished.isEmpty
        else { return false }
        writes.looks += 1
        return writes.looks > count
      }
      if lands { try land() }
      return try base.identity(of: url)
    }

    /// No watch: the key meets the program's write by its own read, never by a watch's read
    /// before it.
    override func watch(
      _ url: URL, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? { nil }

    /// The program's write of its next version.
    private func land() throws {
      let data = writes.withLock { $0.finished.removeFirst() }
      try base.writeAtomically(data, to: url)
    }
  }

  static let program = Data("[1, 2]".utf8)

  /// A disk on the real file system, whose times say the emptied file was written just now.
  static func disk() throws -> (ProgramWritingInPlace, URL, TemporaryFolder) {
    let folder = try TemporaryFolder()
    let url = folder.file("numbers.json")
    return (ProgramWritingInPlace(LocalFileSystem(), url: url), url, folder)
  }

  @Test("A first read that meets the write reads the version the program finishes")
  func firstRead() throws {
    let (disk, url, folder) = try Self.disk()
    try disk.truncate(finishingWith: [Self.program], landsAfter: .read)
    StorageContext.withValue(.inMemory(fileSystem: disk, clock: .manual())) {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect($numbers.loadError == nil)
      #expect(numbers == [1, 2])
    }
    #expect(disk.reads == 2, "read again once")
    _ = folder
  }

  @Test(
    "A read waits for the write of a program put aside between its truncation and its write",
    arguments: [1, 3])
  func waitsForTheWrite(looks: Int) throws {
    let (disk, url, folder) = try Self.disk()
    try disk.truncate(finishingWith: [Self.program], landsAfter: .looks(looks))
    StorageContext.withValue(.inMemory(fileSystem: disk, clock: .manual())) {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect($numbers.loadError == nil)
      #expect(numbers == [1, 2])
    }
    _ = folder
  }

  @Test("A save that meets the write takes the program's version in, and is saved")
  func save() async throws {
    let (disk, url, folder) = try Self.disk()
    try Data(#"{"a": 1}"#.utf8).write(to: url)
    try await StorageContext.withValue(.inMemory(fileSystem: disk, clock: .manual())) {
      @Shared(.fileStorage(url, merge: .byKey())) var counts = [String: Int]()
      #expect(counts == ["a": 1])
      try disk.truncate(finishingWith: [Data(#"{"a": 1, "b": 2}"#.utf8)], landsAfter: .read)
      $counts.withLock { $0["c"] = 3 }
      try await $counts.save()
      #expect($counts.saveError == nil)
      #expect($counts.loadError == nil)
      #expect(counts == ["a": 1, "b": 2, "c": 3])
    }
    let stored = try JSONDecoder().decode([String: Int].self, from: Data(contentsOf: url))
    #expect(stored == ["a": 1, "b": 2, "c": 3], "the program's version and the change, both kept")
    _ = folder
  }

  @Test("A preferences suite read while a program writes it reads the version it finishes")
  func preferencesSuite() throws {
    let (disk, url, folder) = try Self.disk()
    try disk.truncate(finishingWith: [Data(#"{"font": {"int": 14}}"#.utf8)], landsAfter: .read)
    let store = FilePreferences(url: url, fileSystem: disk)
    #expect(store.readError == nil)
    #expect(store.value(forKey: "font") == .int(14))
    #expect(disk.reads == 2, "read again once")
    _ = folder
  }

  @Test("A preferences write that meets the write merges into its version, in its place")
  func preferencesWrite() throws {
    let (disk, url, folder) = try Self.disk()
    try Data(#"{"font": {"int": 12}}"#.utf8).write(to: url)
    let store = FilePreferences(url: url, fileSystem: disk)
    try disk.truncate(finishingWith: [Data(#"{"font": {"int": 14}}"#.utf8)], landsAfter: .read)
    store.set(.bool(true), forKey: "flag")
    try store.flush()
    let written = FilePreferences(url: url, fileSystem: LocalFileSystem())
    #expect(written.value(forKey: "font") == .int(14), "the program's version")
    #expect(written.value(forKey: "flag") == .bool(true))
    // NB: written in place of the version its read waited for, not of the emptied file it found
    // first: that swap would be refused, and the whole write made again.
    #expect(disk.writesAsked == 1)
    _ = folder
  }

  @Test("A file that keeps changing under the read is read a bounded number of times")
  func boundedRereads() throws {
    let (disk, url, folder) = try Self.disk()
    // Each version the program writes is cut short: a file that never settles.
    let versions = (0..<100).map { Data("[\($0),".utf8) }
    try disk.truncate(finishingWith: versions, landsAfter: .read)
    StorageContext.withValue(.inMemory(fileSystem: disk, clock: .manual())) {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect($numbers.loadError != nil, "what it read last is reported")
      #expect(numbers == [])
    }
    #expect(disk.reads == 1 + InPlaceWrite.rereads)
    _ = folder
  }

  @Test("A file that stays empty is unreadable, read once on a disk that keeps no times")
  func staysEmpty() throws {
    let url = URL(fileURLWithPath: "/app/numbers.json")
    let memory = InMemoryFileSystem()
    let disk = ProgramWritingInPlace(memory, url: url)
    try disk.truncate(finishingWith: [], landsAfter: .read)
    StorageContext.withValue(.inMemory(fileSystem: disk, clock: .manual())) {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect($numbers.loadError != nil)
    }
    #expect(disk.reads == 1)
    #expect(try memory.contents(of: url, maximumSize: 100) == Data(), "left as it is")
  }

  @Test(
    "A merge of a sync engine's copy that meets the write merges into the version the program finishes"
  )
  func syncedCopy() throws {
    let folder = SyncedFolder()
    let disk = ProgramWritingInPlace(folder.disk, url: folder.notesURL)
    let context = StorageContext.inMemory(name: "device", fileSystem: disk)
    let key = FileStorageKey<[Note]>.notes(folder.notesURL)
    let milk = [Note(id: 1, text: "milk")]
    try key.save(milk, in: context)
    waitForRecords()
    let saved = try #require(folder.bytes("notes.json"))
    let bob = try NotesFormat.encode(
      milk + [Note(id: 2, text: "bread")],
      ancestry: .child(of: FileVersion(saved, readsAncestry: true), writer: "BOBBBBB"))
    folder.put(bob, as: "notes.sync-conflict-20261207-120000-BOBBBBB.json")
    // A program copies the file over itself, in place: the merge's read meets it empty.
    try disk.truncate(finishingWith: [saved], landsAfter: .read)
    _ = key.mergeConflictCopies(in: context)
    waitForRecords()
    let stored = try NotesFormat.decode(try #require(folder.bytes("notes.json")))
    #expect(stored.texts == [1: "milk", 2: "bread"])
    #expect(folder.names == ["notes.json"], "the copy merged")
  }
}
