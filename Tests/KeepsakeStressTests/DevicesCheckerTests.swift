import Foundation
import Testing

@testable import KeepsakeStress

/// The devices campaign's verdict on an item that came back after its owner deleted it.
@Suite("Devices checker")
struct DevicesCheckerTests {
  let start = ContinuousClock.now

  /// The owner adds `1.1.1` and deletes it 30 s in; another process reports a merge naming it
  /// `reportedAt` seconds in; every device ends with the item back.
  func verdict(reportedAt seconds: Int?, timed: Bool = true) -> DevicesChecker.Verdict {
    let owner = [
      "op add 1.1.1 1.1.1#1", "ack add 1.1.1 1.1.1#1", "op delete 1.1.1", "ack delete 1.1.1",
    ]
    let ownerTimes = [0, 0, 30, 30].map { start + .seconds($0) }
    var other: [String] = []
    var otherTimes: [ContinuousClock.Instant] = []
    if let seconds {
      other.append("conflict items merged items.sync-conflict-x.json 1.1.1 their(default)")
      otherTimes.append(start + .seconds(seconds))
    }
    let disk = DevicesChecker.Disk(device: 1, items: ["1.1.1": "1.1.1#1"], names: ["items.json"])
    return DevicesChecker(
      processes: [
        .init(device: 1, lines: owner, times: timed ? ownerTimes : []),
        .init(device: 2, lines: other, times: timed ? otherTimes : []),
      ],
      disks: [disk]
    ).check()
  }

  @Test("A deletion undone with no report is lost")
  func unreported() {
    #expect(verdict(reportedAt: nil).lostEdits == ["1.1.1"])
  }

  @Test("A report made after the deletion tells of it: decided by the policy, not lost")
  func reportedAfter() {
    let verdict = verdict(reportedAt: 31)
    #expect(verdict.lostEdits.isEmpty)
    #expect(verdict.decidedByPolicy == ["1.1.1"])
  }

  @Test("A report made long before the deletion is not about it: lost")
  func reportedLongBefore() {
    #expect(verdict(reportedAt: 1).lostEdits == ["1.1.1"])
    #expect(verdict(reportedAt: 25).lostEdits.isEmpty, "within the margin of two readers")
  }

  @Test("Without the lines' times, any report naming the item tells of it")
  func untimed() {
    #expect(verdict(reportedAt: 1, timed: false).lostEdits.isEmpty)
  }

  /// The owner adds `1.1.1`, notes it, deletes it, and edits it once it came back with another
  /// device's note (a change wins over a deletion), noting it again when `notesAgain`; every
  /// device ends with the item and the other device's note.
  func verdictOfNoteBeforeDeletion(notesAgain: Bool) -> DevicesChecker.Verdict {
    var owner = [
      "op add 1.1.1 1.1.1#1", "ack add 1.1.1 1.1.1#1", "op note 1.1.1 1.1.1~1.1~3 -",
      "ack note 1.1.1 1.1.1~1.1~3 -", "op delete 1.1.1", "ack delete 1.1.1",
      "op edit 1.1.1 1.1.1#24", "ack edit 1.1.1 1.1.1#24",
    ]
    if notesAgain {
      owner += ["op note 1.1.1 1.1.1~1.1~30 -", "ack note 1.1.1 1.1.1~1.1~30 -"]
    }
    let other = ["op note 1.1.1 1.1.1~2.1~6 -", "ack note 1.1.1 1.1.1~2.1~6 -"]
    let disk = DevicesChecker.Disk(
      device: 1, items: ["1.1.1": "1.1.1#24"], names: ["items.json"],
      notes: ["1.1.1": "1.1.1~2.1~6"])
    return DevicesChecker(
      processes: [
        .init(device: 1, lines: owner, times: []), .init(device: 2, lines: other, times: []),
      ],
      disks: [disk]
    ).check()
  }

  @Test(
    "An author's note on an item it then deleted went with the deletion, also when the item came back"
  )
  func noteBeforeOwnDeletion() {
    #expect(verdictOfNoteBeforeDeletion(notesAgain: false).lostEdits.isEmpty)
    #expect(
      verdictOfNoteBeforeDeletion(notesAgain: true).lostEdits == ["1.1.1 (its note)"],
      "a note set after the item came back is asked for")
  }
}
