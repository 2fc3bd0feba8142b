import Foundation
import Testing

@testable import Keepsake

/// `conflicts` gives every report, where `lastConflict` holds only the last one.
///
/// NB: the time limit guards against a hang (a report that never comes leaves `next()` waiting);
/// each report is in the stream before the save that made it returns.
@Suite("Every conflict, in a stream", .timeLimit(.minutes(5)))
struct ConflictStreamTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/notes.json")

  /// Two processes' references of one file holding one note.
  func twoProcesses() throws -> (Shared<[Note]>, Shared<[Note]>) {
    let world = TwoContexts()
    try world.disk.writeAtomically(
      try JSONEncoder().encode([Note(id: 1, text: "first")]), to: url)
    return (
      world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]()),
      world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    )
  }

  /// Makes `b` report a conflict: `a` and `b` change the same note's text, `a` saves first.
  ///
  /// NB: `a` reads the file first, so its save merges nothing: only `b` has a conflict (a
  /// process whose version another kept in a copy is told too, which would be `a`).
  func conflict(_ a: Shared<[Note]>, _ b: Shared<[Note]>, round: Int) async throws {
    try await a.load()
    a.withLock { $0[0].text = "A's \(round)" }
    b.withLock { $0[0].text = "B's \(round)" }
    try await a.save()
    try await b.save()
  }

  @Test("Two reports close together both reach the stream, in order; lastConflict keeps the last")
  func everyReport() async throws {
    let (a, b) = try twoProcesses()
    let reports = b.conflicts
    try await conflict(a, b, round: 1)
    b.withLock { $0.append(Note(id: 2, text: "B's own")) }
    try await conflict(a, b, round: 2)

    var iterator = reports.makeAsyncIterator()
    let first = try #require(await iterator.next())
    let second = try #require(await iterator.next())
    #expect(first.resolution == .merged(overlapping: ["1.text"]))
    #expect(second.resolution == .merged(overlapping: ["1.text"]))
    let copies = [first.copy, second.copy]
    #expect(copies.allSatisfy { $0 != nil }, "each names the copy of A's text it kept")
    #expect(Set(copies).count == 2, "two reports, not one told twice")
    #expect(b.lastConflict?.copy == second.copy, "lastConflict is the later one")
  }

  @Test("A stream opened later has only what came after; a projection's is its root's")
  func fromNowOn() async throws {
    let (a, b) = try twoProcesses()
    try await conflict(a, b, round: 1)
    let earlier = try #require(b.lastConflict?.copy)
    let reports = b[id: 1]?.conflicts
    try await conflict(a, b, round: 2)
    var iterator = try #require(reports).makeAsyncIterator()
    let report = try #require(await iterator.next())
    #expect(report.copy != earlier, "only the report made after the stream opened")
    #expect(report.copy == b.lastConflict?.copy)
  }

  @Test("Reports made before the iterating task is cancelled are still delivered, then it ends")
  func drainsWhenCancelled() async throws {
    let listeners = PersistenceParts(.nothingToPersist, lane: nil)
    let reports = listeners.conflicts()
    for name in ["a", "b"] {
      listeners.tell(
        SharedConflict(
          keyID: SharedKeyID(kind: "file", name: "/\(name).json"), url: nil,
          resolution: .merged(overlapping: []), prunedCopies: []))
    }
    let task = Task {
      var names: [String] = []
      for await report in reports { names.append(report.keyID.name) }
      return names
    }
    task.cancel()
    #expect(await task.value == ["/a.json", "/b.json"])
  }

  @Test("A stream whose iteration ends stops listening")
  func endsWithItsIteration() async throws {
    let listeners = PersistenceParts(.nothingToPersist, lane: nil)
    let reports = listeners.conflicts()
    let task = Task {
      var count = 0
      for await _ in reports { count += 1 }
      return count
    }
    task.cancel()
    #expect(await task.value == 0)
    // The stream is gone: a report now reaches nobody, and nothing is kept for it.
    listeners.tell(
      SharedConflict(
        keyID: SharedKeyID(kind: "file", name: "/notes.json"), url: nil,
        resolution: .merged(overlapping: []), prunedCopies: []))
    #expect(listeners.conflictStreamCount == 0)
  }

  @Test("A stream dropped without being iterated stops listening")
  func endsWhenDropped() {
    let listeners = PersistenceParts(.nothingToPersist, lane: nil)
    do {
      let reports = listeners.conflicts()
      #expect(listeners.conflictStreamCount == 1)
      _ = reports
    }
    #expect(listeners.conflictStreamCount == 0, "nothing is kept for a stream nobody holds")
  }
}
