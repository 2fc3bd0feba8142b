import Foundation
import Testing

@_spi(Testing) @testable import Keepsake

@Suite("Transactions")
struct TransactionTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/counter.json")

  @Test("update runs on the freshest stored value, not on a stale one in memory")
  func updateReadsFresh() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: 0)
    // NB: the other process writes without telling A's watcher, as one on a network share would.
    let saved = try JSONEncoder().encode(10)
    world.disk.setContents(saved, at: url, notifyingWatchers: false)
    let result = try await a.update { value -> Int in
      value += 1
      return value
    }
    #expect(result == 11)
    #expect(try world.stored(Int.self, at: url) == 11)
    #expect(a.wrappedValue == 11)
  }

  @Test("update waits while another process holds the file's lock", .timeLimit(.minutes(5)))
  func updateWaitsForTheLock() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url), default: 0)
    let otherProcess = try world.disk.lockExclusively(url)
    // The disk consults its fault handler as a lock is asked for, before the wait for it.
    let (lockAttempts, attempted) = AsyncStream<Void>.makeStream()
    world.disk.faultHandler = { operation, _ in
      if operation == .lock { attempted.yield() }
      return nil
    }
    let task = Task {
      try await a.update { value -> Int in
        value += 1
        return value
      }
    }
    // Wait until A has asked for the lock.
    for await _ in lockAttempts { break }
    // The other process writes and lets go; A must see its write.
    world.disk.setContents(try JSONEncoder().encode(10), at: url, notifyingWatchers: false)
    otherProcess.release()
    #expect(try await task.value == 11)
    #expect(try world.stored(Int.self, at: url) == 11)
  }

  @Test("A body that throws changes neither the value nor the file")
  func throwingBodyRollsBack() async throws {
    struct Refused: Error {}
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url), default: 0)
    try await a.update { $0 = 5 }
    await #expect(throws: Refused.self) {
      try await a.update { value in
        value = 99
        throw Refused()
      }
    }
    #expect(a.wrappedValue == 5)
    #expect(try world.stored(Int.self, at: url) == 5)
  }

  @Test("Many concurrent transactions from two processes lose no increment")
  func concurrentIncrements() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url), default: 0)
    let b = world.inSecond(.fileStorage(url), default: 0)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<40 {
        let shared = index.isMultiple(of: 2) ? a : b
        group.addTask { _ = try await shared.update { $0 += 1 } }
      }
      try await group.waitForAll()
    }
    #expect(try world.stored(Int.self, at: url) == 40)
  }

  @Test("withTransaction holds the lock around async work and writes what it changed")
  func scopedTransaction() async throws {
    let world = TwoContexts()
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: 0)
    world.disk.setContents(try JSONEncoder().encode(7), at: url, notifyingWatchers: false)
    let seen = try await a.withTransaction { () async throws -> Int in
      #expect(world.disk.isLocked(url))
      let fresh = a.wrappedValue
      await Task.yield()
      a.withLock { $0 += 1 }
      // A save inside the transaction uses the transaction's lock instead of waiting for it.
      try await a.save()
      a.withLock { $0 += 1 }
      return fresh
    }
    #expect(seen == 7, "the value was refreshed from the file first")
    #expect(!world.disk.isLocked(url))
    #expect(try world.stored(Int.self, at: url) == 9, "written before the lock was released")
  }

  @Test("A transaction on protected data does not run its body")
  func protectedTransaction() async throws {
    let world = TwoContexts()
    world.disk.setContents(Data("not json".utf8), at: url)
    let a = world.inFirst(.fileStorage(url), default: 0)
    #expect(a.loadError != nil)
    await #expect(throws: SharedSaveError.self) {
      try await a.update { $0 = 1 }
    }
    #expect(try world.disk.contents(of: url) == Data("not json".utf8))
  }
}
