import DraftsFeature
import Foundation
import Keepsake

/// An array written again after edits, through the memo of its last writing.
///
/// The drafts are written once, then edited a few times (a body, a pin, the tags, drafts
/// inserted, removed, duplicated and moved, a draft replaced by an equal one in new storage), and
/// written again after each edit through the memo of the writing before, over its memory (the
/// memo handed over, as a file key does). Each writing must be exactly what Foundation writes
/// for the drafts as they are then: an element reused from the memo that had changed, or moved
/// to the wrong place, shows as a difference.
enum DiffWrittenAgain {
  /// Runs one case; returns a description of the difference, or `nil` when the bytes agree.
  static func check(
    _ first: [Draft], using values: inout DiffValues, encoder: JSONEncoder
  ) -> String? {
    var drafts = first
    var memo = KeepsakeJSONEncoder().encodeArray(drafts, reusing: nil)
    for round in 0..<Int.random(in: 1...6, using: &values.random) {
      var edits: [String] = []
      for _ in 0..<Int.random(in: 1...3, using: &values.random) {
        edits.append(edit(&drafts, using: &values))
      }
      // NB: handed over, so that the encoding may write over the memo's memory.
      memo = KeepsakeJSONEncoder().encodeArray(drafts, reusing: memo.take())
      guard let written = memo?.bytes else {
        return "written again: drafts left the memo's way after \(edits)"
      }
      guard let full = try? encoder.encode(drafts), written != full else { continue }
      let offset =
        zip(written, full).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(written.count, full.count)
      return "written again (round \(round), after \(edits.joined(separator: ", "))): at byte "
        + "\(offset) the memo wrote "
        + String(decoding: written.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
        .debugDescription
        + ", a full encode "
        + String(decoding: full.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
        .debugDescription
    }
    return nil
  }

  /// One random edit of `drafts`; returns its name.
  private static func edit(_ drafts: inout [Draft], using values: inout DiffValues) -> String {
    guard !drafts.isEmpty else {
      drafts.append(draft(using: &values))
      return "append"
    }
    let index = Int.random(in: 0..<drafts.count, using: &values.random)
    switch Int.random(in: 0..<9, using: &values.random) {
    case 0:
      drafts[index].body = values.string(maxPieces: 6)
      return "body"
    case 1:
      drafts[index].pinned.toggle()
      return "pin"
    case 2:
      drafts[index].tags.append(values.key())
      return "tag"
    case 3:
      drafts.insert(draft(using: &values), at: index)
      return "insert"
    case 4:
      let end = min(drafts.count, index + Int.random(in: 1...12, using: &values.random))
      drafts.removeSubrange(index..<end)
      return "remove \(end - index)"
    case 5:
      drafts.append(drafts[index])
      return "duplicate"
    case 6:
      drafts.swapAt(index, Int.random(in: 0..<drafts.count, using: &values.random))
      return "swap"
    case 7:
      // An equal draft in new storage: the same bytes, whether copied or encoded again.
      let same = drafts[index]
      drafts[index] = Draft(
        id: same.id, body: String(decoding: Array(same.body.utf8), as: UTF8.self),
        pinned: same.pinned, tags: same.tags.map { String(decoding: Array($0.utf8), as: UTF8.self) }
      )
      return "renewed"
    default:
      drafts.append(draft(using: &values))
      return "append"
    }
  }

  private static func draft(using values: inout DiffValues) -> Draft {
    Draft(
      id: UUID(), body: values.string(maxPieces: 12), pinned: values.chance(20),
      tags: (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.key() })
  }
}
