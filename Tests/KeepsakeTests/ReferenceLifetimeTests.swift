import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

/// Thousands of keys: a reference lives while something holds it, is forgotten afterwards,
/// and first loads never run under a lock other keys need.
@Suite("Reference lifetime")
struct ReferenceLifetimeTests {
  @Test("Dropped file keys leave no reference, slot or watch behind")
  func droppedKeysAreForgotten() async throws {
    let context = StorageContext.inMemory()
    let disk = try #require(context.fileSystem as? InMemoryFileSystem)
    for index in 0..<200 {
      let url = URL(fileURLWithPath: "/docs/\(index)/note.json")
      disk.setContents(Data("\(index)".utf8), at: url)
      let shared = StorageContext.withValue(context) { Shared(.fileStorage(url), default: -1) }
      #expect(shared.wrappedValue == index)
    }
    #expect(context.liveReferenceCount == 0)
    #expect(context.referenceSlotCount == 0)
    // Nothing is still watching: an outside write now reaches no reference.
    #expect(disk.watcherCount == 0)
  }

  @Test("A key used again after it was dropped loads afresh")
  func reloadsAfterDrop() async throws {
    let context = StorageContext.inMemory()
    let disk = try #require(context.fileSystem as? InMemoryFileSystem)
    let url = URL(fileURLWithPath: "/docs/a.json")
    do {
      let first = StorageContext.withValue(context) { Shared(.fileStorage(url), default: 0) }
      try await first.update { $0 = 1 }
    }
    disk.setContents(Data("2".utf8), at: url, notifyingWatchers: false)
    let again = StorageContext.withValue(context) { Shared(.fileStorage(url), default: 0) }
    #expect(again.wrappedValue == 2)
  }

  @Test("A pending save keeps its reference alive until it is written", .timeLimit(.minutes(5)))
  func pendingSaveKeepsReference() async throws {
    let context = StorageContext.inMemory()
    let disk = try #require(context.fileSystem as? InMemoryFileSystem)
    let url = URL(fileURLWithPath: "/docs/pending.json")
    // The disk tells its watchers after each write: the wait wakes at the save itself.
    let (writes, wrote) = AsyncStream<Void>.makeStream()
    let watch = disk.watch(url) { wrote.yield() }
    defer { watch?.cancel() }
    do {
      let shared = StorageContext.withValue(context) {
        Shared(.fileStorage(url, saveInterval: .milliseconds(20)), default: 0)
      }
      shared.withLock { $0 = 42 }
    }
    for await _ in writes { break }
    #expect(try disk.contents(of: url) == Data("42".utf8), "the dropped key's change is written")
  }

  @Test("In-memory keys keep their value and default for the life of their context")
  func inMemoryValuesStay() async throws {
    let context = StorageContext.inMemory()
    try await StorageContext.withValue(context) {
      do { Shared(.inMemory("count"), default: 3).withLock { $0 = 7 } }
      // Nothing holds the key now: its reference is gone, its value is the context's.
      #expect(context.liveReferenceCount == 0)
      #expect(Shared(.inMemory("count"), default: 0).wrappedValue == 7)
      #expect(try await Shared<Int>(require: .inMemory("count")).wrappedValue == 7)
      // The default is the first one, as when the reference stayed: a rebinding falls back on it.
      let count = Shared(.inMemory("count"), default: 0)
      try await count.load(.inMemory("other"))
      #expect(count.wrappedValue == 3)
    }
  }

  @Test("A context nothing holds is freed with its in-memory values")
  func contextsAreFreed() {
    weak var freed: StorageContext?
    do {
      let context = StorageContext.inMemory()
      freed = context
      StorageContext.withValue(context) {
        let shared = Shared(.inMemory("count"), default: 0)
        shared.withLock { $0 = 7 }
        #expect(shared.wrappedValue == 7)
        _ = Shared(.inMemory("list"), default: [1, 2, 3]).wrappedValue
      }
    }
    #expect(freed == nil, "the context and its references hold each other no longer")
  }

  /// A key that never saves but reads its value from elsewhere and is told of changes there:
  /// not an in-memory key, though nothing it holds persists through the reference.
  struct ReadingKey: SharedKey {
    final class Source: Sendable {
      let value = Mutex(5)
      let subscriptions = Mutex(0)
    }
    let source = Source()
    var id: SharedKeyID { SharedKeyID(kind: "reading", name: "count") }
    var saveTiming: SaveTiming { .never }
    func load(in context: StorageContext) throws -> Int? { source.value.withLock { $0 } }
    func save(_ value: Int, in context: StorageContext) throws {}
    func subscribe(
      in context: StorageContext, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? {
      source.subscriptions.withLock { $0 += 1 }
      return StorageSubscription {}
    }
  }

  @Test("A key that never saves but is not in memory is read and watched, also when taken up")
  func neverSavingKeyIsReadAndWatched() {
    let context = StorageContext.inMemory()
    let key = ReadingKey()
    StorageContext.withValue(context) {
      #expect(Shared(key, default: 0).wrappedValue == 5)
      #expect(key.source.subscriptions.withLock { $0 } == 1)
      // Its reference died and parked the value; the next one takes it up and watches again.
      #expect(Shared(key, default: 0).wrappedValue == 5)
    }
    #expect(key.source.subscriptions.withLock { $0 } == 2)
  }

  /// A key whose save timing changes at every look: bad input a key can give.
  struct FickleKey: SharedKey {
    final class Looks: Sendable { let count = Mutex(0) }
    let looks = Looks()
    var id: SharedKeyID { SharedKeyID(kind: "fickle", name: "count") }
    var saveTiming: SaveTiming {
      looks.count.withLock { looks in
        defer { looks += 1 }
        return looks % 3 == 0 ? .never : .immediate
      }
    }
    func load(in context: StorageContext) throws -> Int? { nil }
    func save(_ value: Int, in context: StorageContext) throws {}
  }

  @Test(
    "A key whose save timing changes between lookups never hangs its next lookup",
    .timeLimit(.minutes(5)))
  func fickleKeyNeverHangs() {
    let context = StorageContext.inMemory()
    let key = FickleKey()
    // NB: threads at once, so a reference dies while another lookup holds its slot.
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      StorageContext.withValue(context) {
        for _ in 0..<500 { Shared(key, default: 1).withLock { $0 += 1 } }
      }
    }
    #expect(key.looks.count.withLock { $0 } > 4_000)
  }

  @Test("Threads dropping and taking up one in-memory key at once lose no change")
  func inMemoryChurnLosesNothing() {
    let context = StorageContext.inMemory()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      StorageContext.withValue(context) {
        for _ in 0..<2_000 { Shared(.inMemory("count"), default: 0).withLock { $0 += 1 } }
      }
    }
    let count = StorageContext.withValue(context) { Shared(.inMemory("count"), default: 0) }
    #expect(count.wrappedValue == 16_000)
  }

  @Test("Threads creating one key at once share one reference")
  func oneReferencePerKey() throws {
    let context = StorageContext.inMemory()
    let url = URL(fileURLWithPath: "/docs/shared.json")
    let holders = Holders()
    DispatchQueue.concurrentPerform(iterations: 16) { index in
      let shared = StorageContext.withValue(context) { Shared(.fileStorage(url), default: [Int]()) }
      shared.withLock { $0.append(index) }
      holders.keep(shared)
    }
    #expect(context.liveReferenceCount == 1)
    #expect(holders.all.allSatisfy { Set($0.wrappedValue) == Set(0..<16) })
  }

  @Test("A default that creates another key works, even on first launch")
  func defaultCreatesAnotherKey() {
    let context = StorageContext.inMemory()
    let url = URL(fileURLWithPath: "/docs/settings.json")
    let value = StorageContext.withValue(context) {
      Shared(.fileStorage(url), default: Shared(.inMemory("seed"), default: 5).wrappedValue + 1)
    }
    #expect(value.wrappedValue == 6)
  }

  @Test("300 live file keys in 300 folders all see an outside write")
  func manyKeysSeeOutsideWrites() async throws {
    let folder = try TemporaryFolder()
    let context = StorageContext.confined(to: folder.url)
    let urls = (0..<300).map { folder.url.appendingPathComponent("f\($0)/value.json") }
    let keys = StorageContext.withValue(context) {
      urls.map { Shared(.fileStorage($0), default: -1) }
    }
    for (index, url) in urls.enumerated() {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("\(index)".utf8).write(to: url, options: .atomic)
    }
    // Each key's reload wakes the wait; it ends when the last key has seen its file.
    await waitUntil(timeout: .seconds(20)) {
      keys.indices.allSatisfy { keys[$0].wrappedValue == $0 }
    }
    let blind = keys.indices.filter { keys[$0].wrappedValue != $0 }
    #expect(
      blind.isEmpty, "\(blind.count) keys never saw their file written, from #\(blind.first ?? 0)")
  }

  /// Shared values kept from several threads.
  final class Holders: @unchecked Sendable {
    // NB: only touched with `lock` held.
    private var values: [Shared<[Int]>] = []
    private let lock = NSLock()
    func keep(_ value: Shared<[Int]>) { lock.withLock { values.append(value) } }
    var all: [Shared<[Int]>] { lock.withLock { values } }
  }
}
