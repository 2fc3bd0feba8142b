import Foundation
import KeepsakeTesting
import Observation
import Synchronization
import Testing

@testable import Keepsake

/// Reader keys loaded again, required, rebound to, and saying they are loading: what
/// swift-sharing's `SharedReader` does with a key that loads asynchronously.
@Suite("Reader keys")
struct ReaderKeyTests {
  /// Loads that wait until the test finishes them, one at a time, oldest first; observable, so
  /// a test can wait for a load to start.
  final class ScriptedLoads: Observable, Sendable {
    private let registrar = ObservationRegistrar()
    private let state = Mutex<
      (waiting: [CheckedContinuation<Result<Int?, any Error>, Never>], calls: Int)
    >(([], 0))

    /// How many loads were started.
    var calls: Int {
      registrar.access(self, keyPath: \.calls)
      return state.withLock { $0.calls }
    }

    /// How many loads wait to be finished.
    var waiting: Int {
      registrar.access(self, keyPath: \.waiting)
      return state.withLock { $0.waiting.count }
    }

    func next() async throws -> Int? {
      let result = await withCheckedContinuation { continuation in
        registrar.withMutation(of: self, keyPath: \.waiting) {
          registrar.withMutation(of: self, keyPath: \.calls) {
            state.withLock {
              $0.waiting.append(continuation)
              $0.calls += 1
            }
          }
        }
      }
      return try result.get()
    }

    /// Finishes the oldest waiting load with `result`, once one waits.
    func finish(_ result: Result<Int?, any Error>) async {
      #expect(await waitUntil { self.waiting > 0 })
      let continuation = registrar.withMutation(of: self, keyPath: \.waiting) {
        state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
      }
      continuation?.resume(returning: result)
    }
  }

  /// Where the test finds the subscriber a key was given.
  final class Pushes: Sendable {
    let subscriber = Mutex<SharedSubscriber<Int>?>(nil)
  }

  struct ScriptedKey: SharedReaderKey {
    let name: String
    let loads = ScriptedLoads()
    let pushes = Pushes()

    var id: SharedKeyID { SharedKeyID(kind: "scripted", name: name) }

    func load() async throws -> Int? { try await loads.next() }

    func subscribe(_ subscriber: SharedSubscriber<Int>) -> StorageSubscription? {
      pushes.subscriber.withLock { $0 = subscriber }
      return StorageSubscription {}
    }
  }

  struct Offline: Error {}

  /// A reader of `key` whose first load returned `first`.
  func loadedReader(_ key: ScriptedKey, first: Int) async -> SharedReader<Int> {
    let reader = SharedReader(key, default: 0)
    await key.loads.finish(.success(first))
    #expect(await waitUntil { reader.wrappedValue == first && !reader.isLoading })
    return reader
  }

  @Test("load() calls the key's load again, with isLoading true until it returns")
  func loadAgain() async throws {
    let key = ScriptedKey(name: "again")
    let reader = await loadedReader(key, first: 1)
    let loading = Task { try await reader.load() }
    #expect(await waitUntil { key.loads.calls == 2 })
    #expect(reader.isLoading)
    await key.loads.finish(.success(2))
    try await loading.value
    #expect(reader.wrappedValue == 2)
    #expect(!reader.isLoading)
  }

  @Test("A failed load keeps the value, and its error until a load succeeds")
  func failedLoadKeepsTheError() async throws {
    let key = ScriptedKey(name: "failing")
    let reader = await loadedReader(key, first: 1)
    let failing = Task { try await reader.load() }
    await key.loads.finish(.failure(Offline()))
    await #expect(throws: SharedLoadError.self) { try await failing.value }
    #expect(reader.wrappedValue == 1)
    #expect(reader.loadError?.underlying is Offline)
    #expect(!reader.isLoading)
    let succeeding = Task { try await reader.load() }
    await key.loads.finish(.success(3))
    try await succeeding.value
    #expect(reader.loadError == nil)
    #expect(reader.wrappedValue == 3)
  }

  @Test("SharedReader(require:) loads first, then starts from the value without loading again")
  func require() async throws {
    let key = ScriptedKey(name: "required")
    let making = Task { try await SharedReader(require: key) }
    await key.loads.finish(.success(9))
    let reader = try await making.value
    #expect(reader.wrappedValue == 9)
    #expect(!reader.isLoading)
    #expect(key.loads.calls == 1)
    let subscriber = try #require(key.pushes.subscriber.withLock { $0 })
    subscriber.yield(10)
    #expect(await waitUntil { reader.wrappedValue == 10 }, "pushes still arrive")
  }

  @Test("SharedReader(require:) throws when the key loads nothing or fails")
  func requireFails() async throws {
    let empty = ScriptedKey(name: "empty")
    let nothing = Task { try await SharedReader(require: empty) }
    await empty.loads.finish(.success(nil))
    await #expect {
      try await nothing.value
    } throws: { error in
      (error as? SharedLoadError)?.underlying is NothingStoredError
    }
    let offline = ScriptedKey(name: "offline")
    let failing = Task { try await SharedReader(require: offline) }
    await offline.loads.finish(.failure(Offline()))
    await #expect {
      try await failing.value
    } throws: { error in
      (error as? SharedLoadError)?.underlying is Offline
    }
  }

  @Test("load(_:) points a reader and its copies at a reader key and loads it")
  func loadAnotherReaderKey() async throws {
    @SharedReader(.inMemory("flag")) var flag = 0
    let copy = $flag
    let key = ScriptedKey(name: "remote")
    let loading = Task { try await copy.load(key) }
    #expect(await waitUntil { key.loads.calls == 1 })
    #expect(copy.isLoading)
    #expect(flag == 0, "the reader's default while loading")
    await key.loads.finish(.success(5))
    try await loading.value
    #expect(flag == 5)
    #expect(!$flag.isLoading)
    #expect(key.loads.calls == 1, "loaded once")
  }

  @Test("A key that says it is loading again shows isLoading until its next value")
  func yieldLoading() async throws {
    let key = ScriptedKey(name: "pushing")
    let reader = await loadedReader(key, first: 1)
    let subscriber = try #require(key.pushes.subscriber.withLock { $0 })
    subscriber.yieldLoading()
    #expect(reader.isLoading)
    subscriber.yield(4)
    #expect(await waitUntil { reader.wrappedValue == 4 && !reader.isLoading })
    subscriber.yieldLoading()
    subscriber.yieldLoading(false)
    #expect(!reader.isLoading)
  }
}
