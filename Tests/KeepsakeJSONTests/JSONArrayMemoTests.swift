import Foundation
import Testing

@testable import KeepsakeJSON

/// Reading an array again with the memo of the last reading: the same value and the same errors
/// as reading it whole, with only the changed elements decoded.
@Suite("Arrays read again through their memo")
struct JSONArrayMemoTests {
  @Test("An array read again decodes only the elements whose bytes changed")
  func decodesOnlyChangedElements() throws {
    let decoder = KeepsakeJSONDecoder()
    let counter = DecodeCounter()
    try DecodeCounter.$current.withValue(counter) {
      let first = try decoder.decodeArray(
        of: Row.self, from: Data(#"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#.utf8),
        reusing: nil)
      #expect(counter.count == 2)

      // Another process appended an element: only that one is decoded.
      let appended = Data(#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#.utf8)
      let second = try decoder.decodeArray(of: Row.self, from: appended, reusing: first.memo)
      #expect(second.elements.map(\.id) == [1, 2, 3])
      #expect(counter.count == 3)

      // An edit of the first element: it and every element after it are decoded again.
      let edited = Data(#"[{"id":1,"name":"z"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#.utf8)
      let third = try decoder.decodeArray(of: Row.self, from: edited, reusing: second.memo)
      #expect(third.elements.map(\.name) == ["z", "b", "c"])
      #expect(counter.count == 6)

      // The same bytes again: nothing is decoded.
      let fourth = try decoder.decodeArray(of: Row.self, from: edited, reusing: third.memo)
      #expect(fourth.elements == third.elements)
      #expect(counter.count == 6)
    }
  }

  @Test(
    "An array read again is what reading it whole gives, value or error",
    arguments: [
      // A number or literal that grew: its old bytes are a prefix of the new ones.
      MemoCase("[1,2]", "[1,23]"),
      MemoCase("[1,2]", "[1,2.5]"),
      MemoCase("[1,2]", "[1,2e3]"),
      MemoCase("[10,2]", "[1,2]"),
      // Whitespace, removals, a shorter or an empty array.
      MemoCase("[1,2,3]", "[ 1 , 2 , 3 ]"),
      MemoCase("[1,2,3]", "[1,2,3]\n"),
      MemoCase("[1,2,3]", "[1,3]"),
      MemoCase("[1,2,3]", "[1]"),
      MemoCase("[1,2,3]", "[]"),
      MemoCase("[]", "[1]"),
      // Not an array any more, no longer JSON, or encoded otherwise.
      MemoCase("[1,2,3]", #"{"a":1}"#),
      MemoCase("[1,2,3]", "[1,2,3"),
      MemoCase("[1,2,3]", "[1,2,3]]"),
      MemoCase("[1,2,3]", "[1,2,x]"),
      MemoCase("[1,2,3]", "[1,2,3,]"),
      // Only what follows the unchanged elements is checked again: it must still be checked.
      MemoCase("[1,2,3]", "[1,2,3] x"),
      MemoCase("[1,2,3]", "[1,2,3,4"),
      MemoCase("[1,2,3]", "[1,2,3,4]}"),
      MemoCase("[1,2,3]", "[1,2,3,[4]"),
      MemoCase("[1,2,3]", "[1,2,3]]]"),
      MemoCase("[1,2,3]", ""),
      MemoCase("[1,2,3]", "\u{FEFF}[1,2,3]"),
      MemoCase("[1,2,3]", "null"),
      // An element after the unchanged ones that does not decode.
      MemoCase("[1,2,3]", #"[1,2,"3"]"#),
      MemoCase("[1,2,3]", "[1,2,null]"),
      MemoCase("[1,2,3]", "[1,2,3.5]"),
      MemoCase("[1,2,3]", "[1,2,99999999999999999999]"),
    ])
  func agreesWithWholeReading(_ memoCase: MemoCase) throws {
    let decoder = KeepsakeJSONDecoder()
    let before = try decoder.decodeArray(
      of: Int.self, from: Data(memoCase.before.utf8), reusing: nil)
    let data = Data(memoCase.after.utf8)
    let again = outcome {
      try decoder.decodeArray(of: Int.self, from: data, reusing: before.memo).elements
    }
    #expect(again == outcome { try decoder.decode([Int].self, from: data) })
  }

  @Test("Random edits of an array of objects read the same through the memo as whole")
  func randomEditsOfObjectsAgree() throws {
    var random = SplitMix(seed: 20_261_204)
    let readable = try compareRandomEdits(600, &random) { random in
      Row(
        id: Int(random.next() % 1_000), name: random.text(),
        tags: random.next() % 3 == 0 ? ["t"] : nil)
    }
    // NB: the comparisons are the test; this only shows many edits still read.
    #expect(readable > 50)
  }

  @Test("Random edits of an array of numbers read the same through the memo as whole")
  func randomEditsOfNumbersAgree() throws {
    var random = SplitMix(seed: 42)
    let readable = try compareRandomEdits(600, &random) { random in Int(random.next() % 200) }
    #expect(readable > 50)
  }

  /// Decodes `rounds` random arrays, then random edits of each through the memo of the first
  /// reading, and expects each to read as it reads whole; returns how many edits of a non-empty
  /// array still read.
  private func compareRandomEdits<Element: Codable>(
    _ rounds: Int, _ random: inout SplitMix, _ make: (inout SplitMix) -> Element
  ) throws -> Int {
    let decoder = KeepsakeJSONDecoder()
    // NB: sorted keys: an unsorted encoder's order varies between runs, and the seed would not
    // give the same edits again.
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var readable = 0
    for _ in 0..<rounds {
      let elements = (0..<Int(random.next() % 6)).map { _ in make(&random) }
      let original = try encoder.encode(elements)
      let before = try decoder.decodeArray(of: Element.self, from: original, reusing: nil)
      var bytes = Array(original)
      for _ in 0..<(1 + Int(random.next() % 3)) { random.edit(&bytes) }
      let data = Data(bytes)
      let again = outcome {
        try decoder.decodeArray(of: Element.self, from: data, reusing: before.memo).elements
      }
      let whole = outcome { try decoder.decode([Element].self, from: data) }
      #expect(
        again == whole,
        "\(String(decoding: original, as: UTF8.self)) → \(String(decoding: data, as: UTF8.self))")
      if !before.elements.isEmpty, again.hasPrefix("ok") { readable += 1 }
    }
    return readable
  }

  @Test("A file larger than the memo's limit leaves no memo")
  func largeFilesLeaveNoMemo() throws {
    let decoder = KeepsakeJSONDecoder()
    let small = try decoder.decodeArray(of: String.self, from: Data(#"["a"]"#.utf8), reusing: nil)
    #expect(small.memo != nil)
    let element = "\"" + String(repeating: "x", count: 1_000) + "\""
    let count = JSONArrayMemo<String>.maximumSize / 1_000 + 1
    let large = Data(
      ("[" + Array(repeating: element, count: count).joined(separator: ",") + "]").utf8)
    let read = try decoder.decodeArray(of: String.self, from: large, reusing: nil)
    #expect(read.elements.count == count)
    #expect(read.memo == nil)
  }
}

/// Bytes read before and after a change.
struct MemoCase: Sendable, CustomTestStringConvertible {
  let before: String
  let after: String
  var testDescription: String { "\(before) → \(after)" }
  init(_ before: String, _ after: String) {
    self.before = before
    self.after = after
  }
}

/// Counts the `Row`s decoded while it is current.
private final class DecodeCounter: @unchecked Sendable {
  // NB: `@unchecked`: used by one test's task at a time, synchronously.
  var count = 0
  @TaskLocal static var current: DecodeCounter?
}

private struct Row: Codable, Equatable, CustomStringConvertible {
  var id: Int
  var name: String
  var tags: [String]?

  init(id: Int, name: String, tags: [String]? = nil) {
    self.id = id
    self.name = name
    self.tags = tags
  }

  init(from decoder: any Decoder) throws {
    DecodeCounter.current?.count += 1
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(Int.self, forKey: .id)
    name = try container.decode(String.self, forKey: .name)
    tags = try container.decodeIfPresent([String].self, forKey: .tags)
  }

  var description: String { "\(id):\(name):\(tags ?? [])" }
}

/// A small seeded generator, so a failing edit is found again from the seed.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func text() -> String {
    let letters = Array("ab\\\"é1 ")
    return String((0..<Int(next() % 4)).map { _ in letters[Int(next() % UInt64(letters.count))] })
  }

  /// Changes `bytes` as a writer might: a byte replaced, inserted or removed, or an element
  /// appended.
  mutating func edit(_ bytes: inout [UInt8]) {
    let pieces = Array(#"0123456789,{}[]":. -eE"#.utf8) + [UInt8(ascii: "a")]
    let piece = pieces[Int(next() % UInt64(pieces.count))]
    let position = bytes.isEmpty ? 0 : Int(next() % UInt64(bytes.count))
    switch next() % 4 {
    case 0 where !bytes.isEmpty: bytes[position] = piece
    case 1: bytes.insert(piece, at: position)
    case 2 where !bytes.isEmpty: bytes.remove(at: position)
    default:
      if bytes.last == UInt8(ascii: "]") {
        bytes.removeLast()
        let comma = bytes.last == UInt8(ascii: "[") ? "" : ","
        bytes += Array("\(comma){\"id\":\(next() % 100),\"name\":\"n\"}]".utf8)
      }
    }
  }
}
