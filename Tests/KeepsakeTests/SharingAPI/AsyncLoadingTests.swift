import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

/// Read-only keys that load asynchronously, and file keys that load off the caller's thread.
@Suite("Asynchronous loading")
struct AsyncLoadingTests {
  /// A remote configuration whose load waits until the test lets it finish.
  struct RemoteFlags: SharedReaderKey {
    let name: String
    let release: AsyncStream<Result<[String: Bool], any Error>>
    let pushes: Pushes

    var id: SharedKeyID { SharedKeyID(kind: "remote", name: name) }

    func load() async throws -> [String: Bool]? {
      for await result in release { return try result.get() }
      return nil
    }

    func subscribe(_ subscriber: SharedSubscriber<[String: Bool]>) -> StorageSubscription? {
      pushes.subscriber.withLock { $0 = subscriber }
      return StorageSubscription {}
    }
  }

  /// Where the test finds the subscriber a key was given.
  final class Pushes: Sendable {
    let subscriber = Mutex<SharedSubscriber<[String: Bool]>?>(nil)
  }

  @Test("A reader key shows its default while loading, then the loaded value")
  func readerKeyLoads() async {
    let (release, finish) = AsyncStream<Result<[String: Bool], any Error>>.makeStream()
    let key = RemoteFlags(name: "flags", release: release, pushes: Pushes())
    let flags = SharedReader(key, default: [:])
    #expect(flags.isLoading)
    #expect(flags.wrappedValue == [:])
    finish.yield(.success(["newEditor": true]))
    #expect(await waitUntil { !flags.isLoading })
    #expect(flags.wrappedValue == ["newEditor": true])
    #expect(flags.loadError == nil)
  }

  struct Offline: Error {}

  @Test("A failed load is a loadError; pushed values and errors follow")
  func readerKeyPushes() async throws {
    let (release, finish) = AsyncStream<Result<[String: Bool], any Error>>.makeStream()
    let pushes = Pushes()
    let flags = SharedReader(
      RemoteFlags(name: "pushed", release: release, pushes: pushes), default: [:])
    finish.yield(.failure(Offline()))
    #expect(await waitUntil { flags.loadError != nil })
    #expect(!flags.isLoading)
    let subscriber = try #require(pushes.subscriber.withLock { $0 })
    subscriber.yield(["a": true])
    #expect(await waitUntil { flags.wrappedValue == ["a": true] })
    #expect(flags.loadError == nil, "a value after an error clears it")
    subscriber.yield(throwing: Offline())
    #expect(await waitUntil { flags.loadError != nil })
    #expect(flags.wrappedValue == ["a": true], "an error keeps the value")
  }

  /// An in-memory file system whose reads wait until the test opens the gate.
  final class GatedDisk: ForwardingFileSystem, @unchecked Sendable {
    // NB: `gate` is a semaphore and `gated` an atomic; `disk` is Sendable.
    let disk: InMemoryFileSystem
    let gate = DispatchSemaphore(value: 0)
    let gated = Atomic<Bool>(true)

    init() {
      let disk = InMemoryFileSystem()
      self.disk = disk
      super.init(disk)
    }

    override func contents(of url: URL, maximumSize: Int) throws -> Data? {
      if gated.load(ordering: .acquiring) { gate.wait() }
      return try disk.contents(of: url, maximumSize: maximumSize)
    }

    func open() {
      gated.store(false, ordering: .releasing)
      gate.signal()
    }
  }

  struct Note: Codable, Equatable, Identifiable, Sendable {
    var id: Int
  }

  @Test(
    "A file key that loads in the background never blocks the caller, and keeps a change made meanwhile"
  )
  func backgroundFileLoad() async throws {
    let url = URL(fileURLWithPath: "/app/big.json")
    let gated = GatedDisk()
    gated.disk.setContents(try JSONEncoder().encode([Note(id: 1), Note(id: 2)]), at: url)
    let context = StorageContext.inMemory(fileSystem: gated, clock: .manual())
    // The read is held: creating the key must return anyway.
    let notes = StorageContext.withValue(context) {
      Shared(
        .fileStorage(url, saveInterval: .seconds(60), loadsInBackground: true), default: [Note]())
    }
    #expect(notes.isLoading)
    #expect(notes.wrappedValue == [])
    notes.withLock { $0.append(Note(id: 3)) }
    gated.open()
    #expect(await waitUntil { !notes.isLoading })
    #expect(
      Set(notes.wrappedValue.map(\.id)) == [1, 2, 3], "the loaded value merged with the change")
    try await notes.save()
    let stored = try JSONDecoder().decode(
      [Note].self, from: #require(try gated.disk.contents(of: url)))
    #expect(Set(stored.map(\.id)) == [1, 2, 3])
  }
}
