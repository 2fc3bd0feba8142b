import Foundation
import Testing

@testable import KeepsakeStress

/// The simulation's checker, fed facts by hand: each promise it holds is seen broken, and what
/// is out of the promise is not counted.
@Suite("Simulation checker")
struct PromiseCheckerTests {
  typealias Kind = PromiseChecker.Violation.Kind

  static func items(_ names: String...) -> Data { SimulatedFile.items.encode(names) }
  static let p = SimulationFact.Writer.keepsake("p0#1")
  static let other = SimulationFact.Writer.outside(.atomic)

  /// A case: its facts, and the one promise they break (`nil`: none).
  struct Case: Sendable, CustomStringConvertible {
    var description: String
    var facts: [SimulationFact]
    var broken: Kind?
  }

  static let cases: [Case] = [
    Case(
      description: "half of a pair in the file",
      facts: [
        .added(item: "t0.1a", file: 0, by: "p0#1", origin: .transaction(partner: "t0.1b")),
        .version(file: 0, number: 1, bytes: items("t0.1a"), writer: p, basedOn: 0),
      ], broken: .halfTransaction),
    Case(
      description: "a whole pair in the file",
      facts: [
        .added(item: "t0.1a", file: 0, by: "p0#1", origin: .transaction(partner: "t0.1b")),
        .added(item: "t0.1b", file: 0, by: "p0#1", origin: .transaction(partner: "t0.1a")),
        .version(file: 0, number: 1, bytes: items("t0.1a", "t0.1b"), writer: p, basedOn: 0),
      ], broken: nil),
    Case(
      description: "a save drops an item of the version it examined",
      facts: [
        .version(file: 0, number: 1, bytes: items("o1"), writer: other, basedOn: 0),
        .version(file: 0, number: 2, bytes: items("p0.1"), writer: p, basedOn: 1),
      ], broken: .storedDropped),
    Case(
      description: "a save drops an item written after it examined the file (over it unseen)",
      facts: [
        .version(file: 0, number: 1, bytes: items("o1"), writer: other, basedOn: 0),
        .version(file: 0, number: 2, bytes: items("p0.1"), writer: p, basedOn: 0),
      ], broken: .storedDropped),
    Case(
      description: "another program drops an item",
      facts: [
        .version(file: 0, number: 1, bytes: items("p0.1"), writer: p, basedOn: 0),
        .version(file: 0, number: 2, bytes: items("o1"), writer: other, basedOn: 0),
      ], broken: nil),
    Case(
      description: "a save over unreadable bytes it examined",
      facts: [
        .version(file: 0, number: 1, bytes: Data("[{".utf8), writer: other, basedOn: 0),
        .version(file: 0, number: 2, bytes: items("p0.1"), writer: p, basedOn: 1),
      ], broken: .unreadableOverwritten),
    Case(
      description: "a save over unreadable bytes kept in a quarantine copy first",
      facts: [
        .version(file: 0, number: 1, bytes: Data("[{".utf8), writer: other, basedOn: 0),
        .copy(
          file: 0, path: "/simulation/items.quarantined-x.json", bytes: Data("[{".utf8),
          writer: "p0#1", kind: .quarantine),
        .version(file: 0, number: 2, bytes: items("p0.1"), writer: p, basedOn: 1),
      ], broken: nil),
    Case(
      description: "an acknowledged item that was never in the file",
      facts: [
        .added(item: "p0.1", file: 0, by: "p0#1", origin: .mutation),
        .acknowledged(file: 0, by: "p0#1", request: .save, items: ["p0.1"]),
      ], broken: .acknowledgedNotStored),
    Case(
      description: "a pending item gone with no error reported",
      facts: [
        .added(item: "p0.1", file: 0, by: "p0#1", origin: .mutation),
        .final(file: 0, by: "p0#1", memory: [], saveError: nil, loadError: nil),
      ], broken: .pendingLost),
    Case(
      description: "a pending item kept in memory with an error reported",
      facts: [
        .added(item: "p0.1", file: 0, by: "p0#1", origin: .mutation),
        .final(file: 0, by: "p0#1", memory: ["p0.1"], saveError: "disk full", loadError: nil),
      ], broken: nil),
    Case(
      description: "another side kept in a conflict copy nobody was told of",
      facts: conflict(reported: false), broken: .copyNotReported),
    Case(
      description: "another side kept in a conflict copy the app was told of",
      facts: conflict(reported: true), broken: nil),
    Case(
      description: "another side in a quarantine copy the app was told of and an untold copy",
      facts: twoCopies(first: .quarantine), broken: nil),
    Case(
      description: "another side in two conflict copies, neither told of",
      facts: twoCopies(first: .conflict), broken: .copyNotReported),
    Case(
      description: "another side kept in copies that are all gone",
      facts: twoCopies(first: .quarantine, left: false), broken: .storedDropped),
    Case(
      description: "a rolled back change seen in the file",
      facts: [
        .forbidden(item: "t0.1a", .rolledBack),
        .version(file: 0, number: 1, bytes: items("t0.1a"), writer: p, basedOn: 0),
      ], broken: .forbiddenSeen),
    Case(
      description: "a temporary file left after a fresh launch",
      facts: [.listing(["/simulation/.items.json.keepsake-tmp-2000000000-3": Data("[".utf8)])],
      broken: .temporaryLeft),
  ]

  static func conflict(reported: Bool) -> [SimulationFact] {
    let notes = SimulatedFile.notes
    let copy = "/simulation/notes.conflict-x.json"
    var facts: [SimulationFact] = [
      .version(file: 1, number: 1, bytes: notes.encode(["o1"]), writer: other, basedOn: 0),
      .copy(file: 1, path: copy, bytes: notes.encode(["o1"]), writer: "p0#1", kind: .conflict),
      .version(file: 1, number: 2, bytes: notes.encode(["p0.1"]), writer: p, basedOn: 1),
    ]
    if reported { facts.append(.conflictReported(file: 1, by: "p0#1", copy: copy)) }
    facts.append(.listing([copy: notes.encode(["o1"]), notes.path: notes.encode(["p0.1"])]))
    return facts
  }

  /// `o1` replaced by a save, in a copy of kind `first` (a quarantine copy is told of by
  /// `replaceUnreadableData`'s result) and then in a conflict copy of a process killed before it
  /// could tell its app; both still there unless not `left`.
  static func twoCopies(first: SimulationFact.CopyKind, left: Bool = true) -> [SimulationFact] {
    let notes = SimulatedFile.notes
    let (one, two) = ("/simulation/notes.first-x.json", "/simulation/notes.conflict-y.json")
    let o1 = notes.encode(["o1"])
    return [
      .version(file: 1, number: 1, bytes: o1, writer: other, basedOn: 0),
      .copy(file: 1, path: one, bytes: o1, writer: "p0#1", kind: first),
      .copy(file: 1, path: two, bytes: o1, writer: "p1#2", kind: .conflict),
      .version(file: 1, number: 2, bytes: notes.encode([]), writer: p, basedOn: 1),
      .listing(left ? [one: o1, two: o1, notes.path: notes.encode([])] : [:]),
    ]
  }

  @Test("Each promise is held, and what is out of it is let go", arguments: cases)
  func holds(_ example: Case) {
    let kinds = PromiseChecker.check(example.facts).violations.map(\.kind)
    if let broken = example.broken {
      #expect(kinds == [broken], "\(example)")
    } else {
      #expect(kinds.isEmpty, "\(example)")
    }
  }

  @Test("A save that wrote over what an unlocked writer put there since its look is a failure")
  func raceIsFailed() {
    let checker = PromiseChecker.check(Self.cases[3].facts)
    #expect(checker.violations.map(\.kind) == [.storedDropped])
    #expect(checker.exemptions.racedItems == 1)
  }

  @Test("The checker's fast reading of the compact form agrees with JSONSerialization")
  func fastReadingAgrees() {
    var inputs: [(Data, SimulatedFile)] = []
    for file in SimulatedFile.allCases {
      for names in [[], ["o1"], ["p0.1", "t2.3a", "t2.3b", "sa0"]] {
        for spaced in [false, true] {
          let bytes = file.encode(names, spaced: spaced)
          // Every cut of it too, as an in-place writer leaves it.
          for end in 0...bytes.count { inputs.append((bytes.prefix(end), file)) }
          inputs.append((bytes + Data(" ".utf8), file))
          // A closing bracket too many, as a botched append leaves.
          inputs.append((bytes + Data("]".utf8), file))
        }
        inputs.append((file.futureVersion(names), file))
      }
    }
    inputs.append((Data("[{\"id\":\"a\"},{\"id\":7}]".utf8), .items))
    inputs.append((Data("{\"content\":[\"a\"],\"version\":2}".utf8), .notes))
    var recognised = 0
    for (data, file) in inputs {
      guard let fast = SimulatedDecoding.canonical(data, of: file) else { continue }
      recognised += 1
      #expect(
        fast == SimulatedDecoding.parsed(data, of: file), "\(String(decoding: data, as: UTF8.self))"
      )
    }
    #expect(recognised >= 6)
  }
}
