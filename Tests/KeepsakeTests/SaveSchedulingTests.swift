import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// When saves happen, and what is left beside a file: behaviours a careless change would break
/// without any other test noticing.
@Suite("Save scheduling and leftovers")
struct SaveSchedulingTests {
  let url = URL(fileURLWithPath: "/app/notes.json")

  func disk() throws -> InMemoryFileSystem {
    try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
  }

  @Test("Mutations that go on past the save interval are saved every interval, not once each")
  func longBurstSavesPeriodically() async throws {
    // NB: on a manual clock, so the count is exact however loaded the machine is.
    let clock = StorageClock.manual()
    let disk = InMemoryFileSystem()
    let context = StorageContext.inMemory(name: "burst", fileSystem: disk, clock: clock)
    let count = StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .milliseconds(20)), default: 0)
    }
    for _ in 0..<300 {
      count.withLock { $0 += 1 }
      await clock.advance(by: .milliseconds(1))
    }
    // 300 ms at most one save per 20 ms: the first mutation's save comes 20 ms later, and each
    // save's next mutation arms the next one.
    #expect(disk.completedWrites(of: url) == 15)
    #expect(try disk.contents(of: url) == Data("300".utf8), "each save writes the latest value")
    try await count.flush()
    #expect(disk.completedWrites(of: url) == 15, "nothing was left to flush")
  }

  @Test("Nothing is written before the save interval has passed on the context's clock")
  func nothingBeforeTheInterval() async throws {
    let clock = StorageClock.manual()
    let disk = InMemoryFileSystem()
    let context = StorageContext.inMemory(name: "interval", fileSystem: disk, clock: clock)
    let notes = StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .milliseconds(500)), default: [String]())
    }
    notes.withLock { $0.append("a") }
    await clock.advance(by: .milliseconds(499))
    #expect(disk.completedWrites(of: url) == 0)
    await clock.advance(by: .milliseconds(1))
    #expect(disk.completedWrites(of: url) == 1)
  }

  @Test("StorageContext.flush() writes the pending change of every key")
  func contextFlushWritesEveryKey() async throws {
    let disk = try disk()
    let urls = (0..<3).map { URL(fileURLWithPath: "/app/key\($0).json") }
    let keys = urls.map { Shared(.fileStorage($0, saveInterval: .seconds(3_600)), default: 0) }
    for (index, key) in keys.enumerated() { key.withLock { $0 = index + 10 } }
    #expect(urls.allSatisfy { (try? disk.contents(of: $0)) == nil }, "nothing written yet")
    try await StorageContext.current.flush()
    for (index, url) in urls.enumerated() {
      #expect(try disk.contents(of: url) == Data("\(index + 10)".utf8))
    }
  }

  @Test("A failed background save is retried by the next flush, with no further mutation")
  func failedSaveRetriedByFlush() async throws {
    let disk = try disk()
    let failing = Mutex(true)
    disk.faultHandler = { operation, _ in
      operation == .rename && failing.withLock { $0 } ? .fail(.diskFull) : nil
    }
    @Shared(.fileStorage(url, saveInterval: .milliseconds(1))) var notes = ["draft"]
    $notes.withLock { $0.append("typed") }
    await #expect(throws: SharedSaveError.self) { try await $notes.flush() }
    #expect($notes.saveError != nil)
    #expect(try disk.contents(of: url) == nil)
    failing.withLock { $0 = false }
    try await $notes.flush()
    #expect($notes.saveError == nil)
    #expect(
      try JSONDecoder().decode([String].self, from: #require(try disk.contents(of: url))) == [
        "draft", "typed",
      ])
  }

  @Test("Two quarantines of one file in the same second keep both copies")
  func twoQuarantinesKeepBoth() async throws {
    let disk = try disk()
    disk.setContents(Data("damaged once".utf8), at: url, notifyingWatchers: false)
    @Shared(.fileStorage(url)) var notes = [String]()
    let first = try #require(try await $notes.replaceUnreadableData())
    disk.setContents(Data("damaged twice".utf8), at: url, notifyingWatchers: false)
    await #expect(throws: SharedLoadError.self) { try await $notes.load() }
    let second = try #require(try await $notes.replaceUnreadableData())
    #expect(first != second)
    #expect(try disk.contents(of: first) == Data("damaged once".utf8))
    #expect(try disk.contents(of: second) == Data("damaged twice".utf8))
  }

  @Test("Only temporary files of writers that are gone are removed; a live writer's stays")
  func liveWritersTemporaryFileIsKept() async throws {
    let disk = try disk()
    let folder = url.deletingLastPathComponent()
    // A process that has exited (its pid is free) and one that runs (this test's parent).
    let finished = Process()
    finished.executableURL = URL(fileURLWithPath: "/bin/true")
    try finished.run()
    finished.waitUntilExit()
    let dead = folder.appendingPathComponent(
      ".notes.json.keepsake-tmp-\(finished.processIdentifier)-1")
    let live = folder.appendingPathComponent(".notes.json.keepsake-tmp-\(getppid())-2")
    disk.setContents(Data("half".utf8), at: dead)
    disk.setContents(Data("in progress".utf8), at: live)
    @Shared(.fileStorage(url)) var notes = [String]()
    _ = notes
    #expect(try disk.contents(of: dead) == nil, "a dead writer's leftover is removed")
    #expect(try disk.contents(of: live) == Data("in progress".utf8), "a live writer's is kept")
  }

  @Test("A quarantine or conflict copy's abandoned temporary file is removed too")
  func copiesTemporaryFilesRemoved() async throws {
    let disk = try disk()
    let folder = url.deletingLastPathComponent()
    let finished = Process()
    finished.executableURL = URL(fileURLWithPath: "/bin/true")
    try finished.run()
    finished.waitUntilExit()
    let pid = finished.processIdentifier
    let copies = [
      ".notes.conflict-20261201T090000Z.json.keepsake-tmp-\(pid)-1",
      ".notes.quarantined-20261201T090000Z.json.keepsake-tmp-\(pid)-2",
    ].map { folder.appendingPathComponent($0) }
    let unrelated = folder.appendingPathComponent(".other.json.keepsake-tmp-\(pid)-3")
    for file in copies + [unrelated] { disk.setContents(Data("half".utf8), at: file) }
    @Shared(.fileStorage(url)) var notes = [String]()
    _ = notes
    for file in copies { #expect(try disk.contents(of: file) == nil) }
    #expect(
      try disk.contents(of: unrelated) != nil, "another file's leftovers are its own business")
  }

  /// Counts the listings of folders, by path.
  final class ListingCounter: ForwardingFileSystem, @unchecked Sendable {
    // NB: a Mutex, the only state.
    let listings = Mutex<[String: Int]>([:])
    override func contentsOfDirectory(at url: URL) throws -> [String] {
      listings.withLock { $0[url.standardizedFileURL.path, default: 0] += 1 }
      return try super.contentsOfDirectory(at: url)
    }
  }

  @Test("Keys in one folder list it once for leftovers, and each still gets its own removed")
  func folderListedOnce() throws {
    let memory = InMemoryFileSystem()
    let counter = ListingCounter(memory)
    let finished = Process()
    finished.executableURL = URL(fileURLWithPath: "/bin/true")
    try finished.run()
    finished.waitUntilExit()
    let pid = finished.processIdentifier
    let names = ["a", "b", "c"]
    for name in names {
      memory.setContents(
        Data("half".utf8), at: URL(fileURLWithPath: "/app/.\(name).json.keepsake-tmp-\(pid)-1"))
    }
    let context = StorageContext(name: "listing", fileSystem: counter, isIsolated: true) { _ in
      InMemoryPreferences()
    }
    let keys = StorageContext.withValue(context) {
      names.map { Shared(.fileStorage(URL(fileURLWithPath: "/app/\($0).json")), default: 0) }
    }
    #expect(keys.count == 3)
    let away = UnsavedChange.awayFolder(in: context).standardizedFileURL.path
    #expect(
      counter.listings.withLock { $0 } == ["/app": 1, away: 1],
      "the folder, and the state folder's changes kept away from their files, once each")
    for name in names {
      let leftover = URL(fileURLWithPath: "/app/.\(name).json.keepsake-tmp-\(pid)-1")
      #expect(try memory.contents(of: leftover) == nil, "\(name)'s leftover is removed")
    }
  }
}
