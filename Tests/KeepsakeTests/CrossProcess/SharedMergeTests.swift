import Foundation
import Keepsake
import Testing

@Suite("Three-way merges")
struct SharedMergeTests {
  static func notes(_ pairs: [(Int, String)]) -> [Note] {
    pairs.map { Note(id: $0.0, text: $0.1) }
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var base: [Note]
    var ours: [Note]
    var theirs: [Note]
    var merged: [Note]
    var conflicts: [String]
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "inserts on both sides", base: notes([(1, "a")]), ours: notes([(1, "a"), (2, "b")]),
      theirs: notes([(1, "a"), (3, "c")]), merged: notes([(1, "a"), (3, "c"), (2, "b")]),
      conflicts: []),
    Case(
      name: "they deleted an element we left alone", base: notes([(1, "a"), (2, "b")]),
      ours: notes([(1, "a"), (2, "b")]), theirs: notes([(1, "a")]), merged: notes([(1, "a")]),
      conflicts: []),
    Case(
      name: "they deleted an element we changed", base: notes([(1, "a"), (2, "b")]),
      ours: notes([(1, "a"), (2, "B")]), theirs: notes([(1, "a")]),
      merged: notes([(1, "a"), (2, "B")]), conflicts: ["2"]),
    Case(
      name: "we deleted an element they changed", base: notes([(1, "a"), (2, "b")]),
      ours: notes([(1, "a")]), theirs: notes([(1, "a"), (2, "B")]),
      merged: notes([(1, "a"), (2, "B")]), conflicts: ["2"]),
    Case(
      name: "only they changed an element", base: notes([(1, "a")]), ours: notes([(1, "a")]),
      theirs: notes([(1, "A")]), merged: notes([(1, "A")]), conflicts: []),
    Case(
      name: "both changed an element", base: notes([(1, "a")]), ours: notes([(1, "ours")]),
      theirs: notes([(1, "theirs")]), merged: notes([(1, "ours")]), conflicts: ["1"]),
    Case(
      name: "both made the same change", base: notes([(1, "a")]), ours: notes([(1, "same")]),
      theirs: notes([(1, "same")]), merged: notes([(1, "same")]), conflicts: []),
    Case(
      name: "both deleted an element", base: notes([(1, "a"), (2, "b")]), ours: notes([(1, "a")]),
      theirs: notes([(1, "a")]), merged: notes([(1, "a")]), conflicts: []),
    Case(
      name: "an insert into an empty start", base: [], ours: [], theirs: notes([(5, "e")]),
      merged: notes([(5, "e")]), conflicts: []),
  ]

  @Test("Arrays of identified elements merge by identity", arguments: cases)
  func identifiedMerge(_ example: Case) {
    let result = [Note].merge(base: example.base, ours: example.ours, theirs: example.theirs)
    #expect(result.value == example.merged)
    #expect(result.conflicts == example.conflicts)
  }

  @Test("Preferring theirs decides elements changed on both sides their way")
  func preferringTheirs() {
    let merge = SharedMerge<[Note]>.byID(preferring: .theirs)
    let result = merge.merge(
      base: Self.notes([(1, "a")]), ours: Self.notes([(1, "ours")]),
      theirs: Self.notes([(1, "theirs")]))
    #expect(result.value == Self.notes([(1, "theirs")]))
    #expect(result.conflicts == ["1"])
  }

  @Test("Dictionaries merge by key")
  func keyedMerge() {
    let result = [String: Int].merge(
      base: ["kept": 1, "theirsRemoved": 2, "bothChanged": 3, "oursChanged": 4],
      ours: ["kept": 1, "theirsRemoved": 2, "bothChanged": 30, "oursChanged": 40, "ours": 5],
      theirs: ["kept": 1, "bothChanged": 300, "oursChanged": 4, "theirs": 6])
    #expect(
      result.value == ["kept": 1, "bothChanged": 30, "oursChanged": 40, "ours": 5, "theirs": 6])
    #expect(result.conflicts == ["bothChanged"])
    let theirsWins = SharedMerge<[String: Int]>.byKey(preferring: .theirs).merge(
      base: ["k": 1], ours: ["k": 2], theirs: ["k": 3])
    #expect(theirsWins.value == ["k": 3])
  }

  /// A counter whose merge adds both sides' increments.
  struct Tally: Codable, Equatable, Sendable, SharedMergeable {
    var count: Int
    static func merge(base: Tally, ours: Tally, theirs: Tally) -> SharedMergeResult<Tally> {
      SharedMergeResult(value: Tally(count: ours.count + theirs.count - base.count))
    }
  }

  @Test("A value's own SharedMergeable conformance is used by file keys with nothing declared")
  func ownConformance() async throws {
    let world = TwoContexts()
    let url = URL(fileURLWithPath: "/tally.json")
    let a = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: Tally(count: 0))
    let b = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: Tally(count: 0))
    a.withLock { $0.count += 2 }
    b.withLock { $0.count += 3 }
    try await a.save()
    try await b.save()
    #expect(try world.stored(Tally.self, at: url) == Tally(count: 5))
  }
}
