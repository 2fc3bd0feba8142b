import Foundation
import Testing

@testable import Keepsake

/// A kind of shared storage added through the persistence protocol alone gets what a file key
/// gets from the reference's machine: saves under the lock, merges, conflict copies, protection
/// of data it cannot read, outside changes seen.
@Suite("A key kind added through the persistence protocol")
struct SharedMemoryKeyTests {
  /// Two contexts, as two processes, and `Shared`s of one memory in each.
  struct World {
    let first = StorageContext.inMemory(name: "process A")
    let second = StorageContext.inMemory(name: "process B")

    func shared<Value: Codable & Sendable>(
      _ memory: SharedMemory, in context: StorageContext, default value: Value
    ) -> Shared<Value> {
      StorageContext.withValue(context) { Shared(SharedMemoryKey<Value>(memory), default: value) }
    }
  }

  static func decoded<Value: Decodable>(_ type: Value.Type, _ memory: SharedMemory) throws
    -> Value?
  {
    try memory.current.data.map { try JSONDecoder().decode(type, from: $0) }
  }

  @Test("A save reads and writes under the lock, and reads before it writes")
  func saveUnderTheLock() async throws {
    let memory = SharedMemory(name: "order")
    let world = World()
    let notes = world.shared(memory, in: world.first, default: [Note]())
    notes.withLock { $0.append(Note(id: 1, text: "one")) }
    try await notes.save()
    #expect(Array(memory.log.prefix(4)) == [.lock, .read, .write, .unlock])
    #expect(
      memory.log.dropFirst(4).allSatisfy { $0 == .read },
      "its own write, seen by its watch, is read and found unchanged: nothing written again")
    #expect(try Self.decoded([Note].self, memory) == [Note(id: 1, text: "one")])
  }

  @Test("Inserts made in two contexts from the same start are both kept")
  func bothInsertsKept() async throws {
    let memory = SharedMemory(name: "notes")
    let world = World()
    let a = world.shared(memory, in: world.first, default: [Note]())
    let b = world.shared(memory, in: world.second, default: [Note]())
    a.withLock { $0.append(Note(id: 1, text: "from A")) }
    b.withLock { $0.append(Note(id: 2, text: "from B")) }
    try await a.save()
    try await b.save()
    let stored = try #require(try Self.decoded([Note].self, memory))
    #expect(Set(stored.map(\.id)) == [1, 2])
    #expect(b.lastConflict?.resolution == .merged(overlapping: []))
    try await a.flush()
    #expect(Set(a.wrappedValue.map(\.id)) == [1, 2], "A takes in B's merged save")
  }

  @Test("Another program's change reaches the value")
  func outsideChangeSeen() async throws {
    let memory = SharedMemory(name: "title", data: try JSONEncoder().encode("first"))
    let clock = StorageClock.manual()
    let title = World().shared(
      memory, in: .inMemory(name: "process A", clock: clock), default: "")
    #expect(title.wrappedValue == "first")
    memory.store(try JSONEncoder().encode("second"))
    try await title.flush()
    #expect(title.wrappedValue == "second")
    memory.store(nil)
    try await title.flush()
    // NB: a removal is taken in once nothing came back in its place for the replacement grace.
    await clock.advance(by: PersistenceMachine.replacementGrace)
    #expect(title.wrappedValue == "", "removed: the default")
    #expect(memory.current.data == nil, "nothing written back")
  }

  @Test("A value without a merge keeps theirs as a conflict copy, and ours in the store")
  func keepsBoth() async throws {
    let memory = SharedMemory(name: "settings")
    let world = World()
    let start = Settings(theme: "light", fontSize: 12)
    let a = world.shared(memory, in: world.first, default: start)
    let b = world.shared(memory, in: world.second, default: start)
    a.withLock { $0.theme = "dark" }
    b.withLock { $0.fontSize = 18 }
    try await b.save()
    try await a.save()
    #expect(try Self.decoded(Settings.self, memory) == Settings(theme: "dark", fontSize: 12))
    let copy = try #require(memory.copies.first)
    #expect(
      try JSONDecoder().decode(Settings.self, from: copy) == Settings(theme: "light", fontSize: 18))
    guard case .keptBoth(let url) = a.lastConflict?.resolution else {
      Issue.record("expected both kept, got \(String(describing: a.lastConflict))")
      return
    }
    #expect(url.path.hasPrefix("/memory/settings"))
  }

  @Test("Data it cannot read is never written over; the refused change is kept")
  func unreadableProtected() async throws {
    let damaged = Data("{ not json".utf8)
    let memory = SharedMemory(name: "damaged", data: damaged)
    let world = World()
    let notes = world.shared(memory, in: world.first, default: [Note]())
    #expect(notes.loadError != nil)
    notes.withLock { $0.append(Note(id: 1, text: "new")) }
    await #expect(throws: SharedSaveError.self) { try await notes.save() }
    #expect(memory.current.data == damaged)
    #expect(!memory.log.contains(.write))
    let kept = try #require(memory.unsaved.last)
    #expect(try JSONDecoder().decode([Note].self, from: kept) == [Note(id: 1, text: "new")])
  }
}
