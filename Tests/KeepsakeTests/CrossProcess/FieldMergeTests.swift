import Foundation
@_spi(Testing) import Keepsake
import Synchronization
import Testing

/// What each writer meant survives a merge: changes to different fields of one element both
/// stay, a field changed on both sides keeps ours and keeps theirs beside the file, and values
/// whose fields depend on each other are never merged into a value nobody wrote.
@Suite("Merges field by field")
struct FieldMergeTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/drafts.json")

  struct Draft: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var text: String
    var pinned = false
  }

  /// Two processes that read `start`, then each change it by `first` and `second`; the first
  /// saves first.
  func twoWriters(
    start: [Draft], first: @escaping @Sendable (inout [Draft]) -> Void,
    second: @escaping @Sendable (inout [Draft]) -> Void
  ) async throws -> (stored: [Draft], second: Shared<[Draft]>, world: TwoContexts) {
    let world = TwoContexts()
    try world.disk.writeAtomically(try JSONEncoder().encode(start), to: url)
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Draft]())
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Draft]())
    a.withLock(first)
    b.withLock(second)
    try await a.save()
    try await b.save()
    let stored = try #require(try world.stored([Draft].self, at: url))
    return (stored, b, world)
  }

  @Test("One process pins a draft while another edits its text: both changes are in the file")
  func pinAndEdit() async throws {
    let (stored, b, _) = try await twoWriters(
      start: [Draft(id: 1, text: "first")],
      first: { $0[0].pinned = true }, second: { $0[0].text = "edited" })
    #expect(stored == [Draft(id: 1, text: "edited", pinned: true)])
    #expect(b.wrappedValue == stored)
    #expect(b.lastConflict?.resolution == .merged(overlapping: []))
    #expect(b.lastConflict?.copy == nil, "nothing conflicted: no copy")
  }

  @Test("One process edits a draft's text while another pins it: both changes are in the file")
  func editAndPin() async throws {
    let (stored, _, _) = try await twoWriters(
      start: [Draft(id: 1, text: "first")],
      first: { $0[0].text = "edited" }, second: { $0[0].pinned = true })
    #expect(stored == [Draft(id: 1, text: "edited", pinned: true)])
  }

  @Test("Both processes edit one field: ours is written, theirs is kept, and the field is named")
  func sameFieldBothSides() async throws {
    let (stored, b, world) = try await twoWriters(
      start: [Draft(id: 1, text: "first"), Draft(id: 2, text: "second")],
      first: { $0[0].text = "by A" }, second: { $0[0].text = "by B" })
    #expect(stored.map(\.text) == ["by B", "second"], "ours, the later save's, is written")
    let conflict = try #require(b.lastConflict)
    #expect(conflict.resolution == .merged(overlapping: ["1.text"]))
    let copy = try #require(conflict.copy, "theirs is kept beside the file")
    let keptData = try #require(try world.disk.contents(of: copy))
    let kept = try JSONDecoder().decode([Draft].self, from: keptData)
    #expect(kept.first?.text == "by A")
    #expect(conflict.description.contains("1.text"))
  }

  @Test("Inserts and deletions of both sides are kept beside field edits")
  func insertsBesideFieldEdits() async throws {
    let (stored, _, _) = try await twoWriters(
      start: [Draft(id: 1, text: "one"), Draft(id: 2, text: "two")],
      first: {
        $0[0].pinned = true
        $0.append(Draft(id: 3, text: "A's"))
      },
      second: {
        $0[0].text = "edited"
        $0.removeAll { $0.id == 2 }
      })
    #expect(stored == [Draft(id: 1, text: "edited", pinned: true), Draft(id: 3, text: "A's")])
  }

  struct Range: Codable, Equatable, Sendable {
    var lower: Int
    var upper: Int
  }

  struct Preferences: Codable, Equatable, Sendable, SharedFieldMergeable {
    var theme: String
    var fontSize: Int
  }

  @Test("A value that opts in merges its fields; one that does not keeps both versions")
  func optIn() async throws {
    let world = TwoContexts()
    let prefsURL = url.deletingLastPathComponent().appendingPathComponent("prefs.json")
    let start = Preferences(theme: "light", fontSize: 12)
    let a = world.inFirst(.fileStorage(prefsURL, saveInterval: .seconds(60)), default: start)
    let b = world.inSecond(.fileStorage(prefsURL, saveInterval: .seconds(60)), default: start)
    a.withLock { $0.theme = "dark" }
    b.withLock { $0.fontSize = 20 }
    try await a.save()
    try await b.save()
    #expect(
      try world.stored(Preferences.self, at: prefsURL) == Preferences(theme: "dark", fontSize: 20))

    let rangeURL = url.deletingLastPathComponent().appendingPathComponent("range.json")
    let first = world.inFirst(
      .fileStorage(rangeURL, saveInterval: .seconds(60)), default: Range(lower: 0, upper: 10))
    let second = world.inSecond(
      .fileStorage(rangeURL, saveInterval: .seconds(60)), default: Range(lower: 0, upper: 10))
    try await first.save()
    try await second.load()
    first.withLock { $0.lower = 5 }
    second.withLock { $0.upper = 3 }
    try await first.save()
    try await second.save()
    // Merged by field it would be 5...3, a range nobody wrote: both versions are kept instead.
    #expect(try world.stored(Range.self, at: rangeURL) == Range(lower: 0, upper: 3))
    guard case .keptBoth? = second.lastConflict?.resolution else {
      Issue.record("expected both versions kept, got \(String(describing: second.lastConflict))")
      return
    }
  }

  @Test("A merge the key was given still wins over the merge by field")
  func givenMergeWins() async throws {
    let world = TwoContexts()
    try world.disk.writeAtomically(try JSONEncoder().encode([Draft(id: 1, text: "first")]), to: url)
    func key() -> FileStorageKey<[Draft]> {
      .fileStorage(url, saveInterval: .seconds(60), merge: .byID(preferring: .theirs))
    }
    let a = world.inFirst(key(), default: [Draft]())
    let b = world.inSecond(key(), default: [Draft]())
    a.withLock { $0[0].pinned = true }
    b.withLock { $0[0].text = "edited" }
    try await a.save()
    try await b.save()
    #expect(try world.stored([Draft].self, at: url) == [Draft(id: 1, text: "first", pinned: true)])
  }

  enum Shape: Codable, Equatable, Sendable {
    case circle(radius: Int)
    case square(side: Int)
  }

  struct Figure: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var shape: Shape
  }

  @Test("An enum case changed on both sides is taken whole, never two cases in one value")
  func enumCasesTakenWhole() async throws {
    let world = TwoContexts()
    let figures = url.deletingLastPathComponent().appendingPathComponent("figures.json")
    try world.disk.writeAtomically(
      try JSONEncoder().encode([Figure(id: 1, shape: .circle(radius: 1))]), to: figures)
    let a = world.inFirst(.fileStorage(figures, saveInterval: .seconds(60)), default: [Figure]())
    let b = world.inSecond(.fileStorage(figures, saveInterval: .seconds(60)), default: [Figure]())
    a.withLock { $0[0].shape = .circle(radius: 2) }
    b.withLock { $0[0].shape = .square(side: 3) }
    try await a.save()
    try await b.save()
    let stored = try #require(try world.stored([Figure].self, at: figures))
    #expect(stored == [Figure(id: 1, shape: .square(side: 3))], "ours, whole")
    #expect(b.lastConflict?.resolution == .merged(overlapping: ["1.shape"]))
  }

  @Test(
    "A copy of theirs that fails takes nothing in: a later version is merged against what was read")
  func failedCopyTakesNothingIn() async throws {
    let world = TwoContexts()
    let start = [Draft(id: 1, text: "one"), Draft(id: 2, text: "two")]
    try world.disk.writeAtomically(try JSONEncoder().encode(start), to: url)
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [Draft]())
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [Draft]())
    let copies = Mutex(true)
    world.disk.faultHandler = { operation, path in
      guard operation == .write, path.contains(".conflict-"), copies.withLock({ $0 }) else {
        return nil
      }
      return .fail(.diskFull)
    }
    b.withLock { $0[0].text = "by B" }
    a.withLock {
      $0[0].text = "by A"
      $0.removeAll { $0.id == 2 }
    }
    try await a.save()
    await #expect(throws: SharedSaveError.self) { try await b.save() }
    #expect(
      b.wrappedValue == [Draft(id: 1, text: "by B"), Draft(id: 2, text: "two")],
      "nothing of theirs is taken in before theirs is safe")
    copies.withLock { $0 = false }

    // A puts draft 2 back as it was; B's save must see it as theirs, not as a draft B removed.
    a.withLock { $0.append(Draft(id: 2, text: "two")) }
    try await a.save()
    try await b.save()
    let stored = try #require(try world.stored([Draft].self, at: url))
    #expect(stored == [Draft(id: 1, text: "by B"), Draft(id: 2, text: "two")])
    let copy = try #require(b.lastConflict?.copy, "theirs of draft 1 is kept beside the file")
    let kept = try JSONDecoder().decode(
      [Draft].self, from: try #require(try world.disk.contents(of: copy)))
    #expect(kept.first?.text == "by A")
  }
}
