import DraftsFeature
import FaultInjection
import Foundation

/// Realistic drafts, reproducibly: a UUID, 40 to 400 characters with some non-ASCII text, a
/// Bool and 0 to 3 tags.
enum SampleDrafts {
  private static let words = [
    "meeting", "café", "notes", "über", "plan", "draft", "reply", "señor", "budget", "idea",
    "日本語", "résumé", "list", "call", "🎉", "agenda", "naïve", "follow-up", "Zürich", "todo",
  ]
  private static let tags = ["work", "home", "urgent", "later", "ideas", "travel"]

  static func make(_ count: Int, seed: UInt64 = 42) -> [Draft] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { _ in
      let length = 40 + Int(random.next() % 361)
      var body = ""
      // NB: counted as it grows: `String.count` walks the whole string each time. Each word
      // ends in a space, so characters never merge across words and the counts add up.
      var characters = 0
      while characters < length {
        let word = words[Int(random.next() % UInt64(words.count))]
        body += word + " "
        characters += word.count + 1
      }
      let tagCount = Int(random.next() % 4)
      return Draft(
        id: UUID(),
        body: String(body.prefix(length)),
        pinned: random.next() % 5 == 0,
        tags: (0..<tagCount).map { _ in tags[Int(random.next() % UInt64(tags.count))] })
    }
  }

  /// A draft as version 1 stored it.
  struct V1: Codable {
    var id: UUID
    var text: String
  }

  /// The drafts as a v1 file: a bare array of `{"id", "text"}`.
  static func v1File(_ drafts: [Draft]) throws -> Data {
    try JSONEncoder().encode(drafts.map { V1(id: $0.id, text: $0.body) })
  }
}
