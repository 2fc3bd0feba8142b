import Foundation
import Testing

@testable import Keepsake

/// One report tells of every change a pass of the take-in merged: the parts each merge's policy
/// decided, and the conflict copy where one was kept.
@Suite("The report of kept changes taken in")
struct KeptChangesReportTests {
  typealias Key = FileStorageKey<[String]>

  let file = URL(fileURLWithPath: "/data/items.json")
  let copy = URL(fileURLWithPath: "/data/items.conflict-20261205T210000Z.json")

  func report(_ resolution: SharedConflict.Resolution, copy: URL? = nil) -> SharedConflict {
    SharedConflict(
      keyID: SharedKeyID(kind: "file", name: file.path), url: file, resolution: resolution,
      copy: copy)
  }

  @Test("A later merge with nothing decided keeps the parts an earlier one decided")
  func earlierPartsStay() {
    // The earlier change was a deletion that gave way to another writer's change of the item.
    let combined = Key.combined(
      report(.merged(overlapping: ["7"])), report(.merged(overlapping: [])))
    #expect(combined.resolution == .merged(overlapping: ["7"]))
  }

  @Test("Two merges tell of both their parts, once each, and of the copy either kept")
  func partsAndCopyCombine() {
    let first = Key.combined(nil, report(.merged(overlapping: ["7", "8.note"])))
    let combined = Key.combined(first, report(.merged(overlapping: ["8.note", "9"]), copy: copy))
    #expect(combined.resolution == .merged(overlapping: ["7", "8.note", "9"]))
    #expect(combined.copy == copy)
  }

  @Test("A report that kept both versions is not replaced by a later merge")
  func keptBothStays() {
    let keptBoth = report(.keptBoth(copy: copy))
    #expect(
      Key.combined(keptBoth, report(.merged(overlapping: ["7"]))).resolution == keptBoth.resolution)
    #expect(
      Key.combined(report(.merged(overlapping: [])), keptBoth).resolution == keptBoth.resolution)
  }
}
