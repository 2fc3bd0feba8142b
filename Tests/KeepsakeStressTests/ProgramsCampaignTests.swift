import Foundation
import Testing

@testable import KeepsakeStress

@Suite("Real programs on an open file")
struct ProgramsCampaignTests {
  @Test(
    "cp, cp -p, rm, mv, sed -i and touch on an open file: nothing written is lost, no change waits",
    arguments: ProgramsDocument.allCases)
  func programsLoseNothing(on document: ProgramsDocument) {
    var configuration = ProgramsCampaign.Configuration(executable: stressExecutable)
    configuration.seconds = 3
    configuration.seed = document == .drafts ? 7 : 8
    configuration.document = document
    let report = ProgramsCampaign(configuration).run()
    #expect(report.passed, "\(report)")
    #expect((report[figure: "acknowledged"] ?? 0) > 5)
    for operation in OutsidePrograms.Operation.allCases {
      #expect((report[figure: "ran \(operation.rawValue)"] ?? 0) > 0, "\(operation.rawValue)")
    }
  }

  @Test(
    "A writer that never reads the file again loses entries, and the campaign says so",
    arguments: ProgramsDocument.allCases)
  func carelessWriterLoses(on document: ProgramsDocument) {
    var configuration = ProgramsCampaign.Configuration(executable: stressExecutable)
    configuration.seconds = 2
    configuration.processes = 2
    configuration.writer = .plain
    configuration.document = document
    let report = ProgramsCampaign(configuration).run()
    #expect(!report.passed)
    #expect((report[figure: "acknowledged entries lost"] ?? 0) > 0, "\(report)")
    if document == .drafts {
      #expect((report[figure: "entries the programs added, lost"] ?? 0) > 0, "\(report)")
    }
  }

  @Test("An entry saved while a program read and wrote the file is excused; one saved apart is not")
  func blindWindows() {
    var log = ProgramsLog()
    log.read(
      ["ready", "ack p1-1 100 200", "pending p1-2 300", "unacked p1-3 400", "flushed 900", "done"],
      of: "p1")
    #expect(log.acknowledged.map(\.body) == ["p1-1", "p1-2", "p1-3"])
    #expect(log.acknowledged.map(\.end) == [200, 900, 900])
    #expect(log.added == 3)
    #expect(log.refused == 1)
    // A program read at 150 and wrote by 250: p1-1 (made at 100, saved by 200) may be its loss.
    let blind = log.missing(from: ["p1-2", "p1-3"], windows: [(start: 150, end: 250)])
    #expect(blind.lost == [])
    #expect(blind.excused == 1)
    // Read after p1-1's save returned: the file held it, and its write kept it.
    let apart = log.missing(from: ["p1-2", "p1-3"], windows: [(start: 200, end: 250)])
    #expect(apart.lost == ["p1-1"])
    // Wrote before p1-2 was made: it cannot have taken it.
    let before = log.missing(from: ["p1-1", "p1-3"], windows: [(start: 250, end: 300)])
    #expect(before.lost == ["p1-2"])
  }

  @Test("A suite as the programs see it: its keys, its seed's text, a key added")
  func suiteAsTheProgramsSeeIt() throws {
    let document = ProgramsDocument.preferences
    let data = try document.initialData()
    #expect(Set(document.entries(in: data) ?? []) == ["seed", "first"])
    #expect(document.seed(in: data) == "seedA")
    let added = try #require(document.adding("outside-1", to: data))
    #expect(Set(document.entries(in: added) ?? []) == ["seed", "first", "outside-1"])
    #expect(document.entries(in: Data("{not json".utf8)) == nil)
  }

  @Test("The seed's edits keep its size")
  func sameSizeEdits() {
    #expect(OutsidePrograms.nextSeed(after: "seedA") == "seedB")
    #expect(OutsidePrograms.nextSeed(after: "seedH") == "seedA")
  }
}
