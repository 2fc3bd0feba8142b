import Foundation
import Testing

@testable import KeepsakeJSON

/// Writing an array again with the memo of the last writing: the bytes of a whole encoding, with
/// only the changed elements encoded.
@Suite("Arrays written again through their memo")
struct JSONArrayEncodingMemoTests {
  @Test("An array written again encodes only the elements that changed")
  func encodesOnlyChangedElements() throws {
    let counter = EncodeCounter()
    try EncodeCounter.$current.withValue(counter) {
      var notes = (0..<6).map { Note(id: $0, text: "a note longer than fifteen bytes, \($0)") }
      var memo = try written(notes, reusing: nil)
      #expect(counter.count == 6)

      // One edited: it alone is encoded.
      notes[2].text = "edited"
      notes[4].isPinned = true
      memo = try written(notes, reusing: memo)
      #expect(counter.count == 8)

      // Appended, inserted, removed: only the new elements.
      notes.append(Note(id: 6, text: "appended"))
      notes.insert(Note(id: 7, text: "inserted"), at: 1)
      notes.remove(at: 4)
      memo = try written(notes, reusing: memo)
      #expect(counter.count == 10)

      // Several removed together, and nothing changed: nothing is encoded.
      notes.removeSubrange(1..<4)
      memo = try written(notes, reusing: memo)
      memo = try written(notes, reusing: memo)
      #expect(counter.count == 10)

      // The same contents in a new string buffer: encoded again, to the same bytes. (A string of
      // up to 15 bytes is held in the value itself, and would be taken from the memo.)
      notes[0] = Note(
        id: notes[0].id, text: String(decoding: Array(notes[0].text.utf8), as: UTF8.self))
      memo = try written(notes, reusing: memo)
      #expect(counter.count == 11)
      #expect(memo.bytes == (try KeepsakeJSONEncoder().encode(notes)))
    }
  }

  @Test("Random edits of an array are written through the memo as a whole encoding writes them")
  func randomEditsAgree() throws {
    var random = SplitMix(seed: 20_261_205)
    var notes: [Note] = []
    var memo: JSONArrayEncodingMemo<Note>? = nil
    for round in 0..<400 {
      for _ in 0...(random.next() % 4) { random.edit(&notes) }
      // `written` compares the bytes with a whole encoding's.
      memo = try written(notes, reusing: memo, round: round)
      // Sometimes a memo of another encoding of other values: still the whole encoding's bytes.
      if random.next() % 17 == 0 {
        memo = try written(notes.shuffled(using: &random), reusing: memo)
      }
    }
  }

  @Test("An array written again over its memo's memory has the bytes of a whole encoding")
  func writtenInPlaceAgree() throws {
    var random = SplitMix(seed: 20_261_206)
    var notes = (0..<40).map { Note(id: $0, text: "a note longer than fifteen bytes, \($0)") }
    let prefix = Array(#"{"content":"#.utf8)
    let suffix = Array(#","version":2}"#.utf8)
    let encoder = KeepsakeJSONEncoder()
    var memo = encoder.encodeArray(notes, reusing: nil, prefix: prefix, suffix: suffix)
    var inPlace = 0
    for round in 0..<400 {
      for _ in 0...(random.next() % 4) { random.edit(&notes) }
      let before = memo?.storage
      // NB: the memo handed over, its only holder: so it can be written over.
      memo = encoder.encodeArray(notes, reusing: memo.take(), prefix: prefix, suffix: suffix)
      let written = try #require(memo)
      if written.storage == before { inPlace += 1 }
      let whole = try encoder.encode(Envelope(content: notes, version: 2))
      #expect(written.bytes == whole, "round \(round)")
    }
    // NB: the comparisons are the test; this only shows the memory was written over.
    #expect(inPlace > 300)
  }

  @Test("Bytes handed out by an encoding are never written over by the next")
  func handedOutBytesStay() throws {
    var notes = (0..<10).map { Note(id: $0, text: "a note longer than fifteen bytes, \($0)") }
    let encoder = KeepsakeJSONEncoder()
    var memo = encoder.encodeArray(notes, reusing: nil)
    let held = try #require(memo).bytes
    let snapshot = Array(held)
    let before = memo?.storage
    notes[0].text = "edited, and shorter"
    memo = encoder.encodeArray(notes, reusing: memo.take())
    #expect(Array(held) == snapshot, "a save still writing these bytes reads them unchanged")
    #expect(try #require(memo).bytes == (try encoder.encode(notes)))
    #expect(memo?.storage != before, "written into new memory")
  }

  @Test("An envelope's bytes around the array, and its depth, are the whole document's")
  func envelopeAroundTheArray() throws {
    let notes = [Note(id: 1, text: "a/b")]
    let prefix = Array(#"{"content":"#.utf8)
    let suffix = Array(#","version":2}"#.utf8)
    let memo = try #require(
      KeepsakeJSONEncoder().encodeArray(notes, reusing: nil, prefix: prefix, suffix: suffix))
    let whole = try KeepsakeJSONEncoder().encode(Envelope(content: notes, version: 2))
    #expect(memo.bytes == whole)

    // Nested as deep as the encoder writes at the top level, but not one level deeper.
    let deep = [DeepArrays(depth: 509)]
    #expect(KeepsakeJSONEncoder().encodeArray(deep, reusing: nil) != nil)
    #expect(KeepsakeJSONEncoder().encodeArray(deep, reusing: nil, depth: 1) == nil)
    #expect(throws: EncodingError.self) {
      try KeepsakeJSONEncoder().encode(Envelope(content: deep, version: 2))
    }
  }

  @Test("Elements whose memory does not say what they are are always encoded the usual way")
  func elementsWithoutLayoutGoTheUsualWay() throws {
    // An object changed in place keeps its address: its element would look unchanged.
    let box = Box(count: 1)
    #expect(KeepsakeJSONEncoder().encodeArray([Holding(box: box)], reusing: nil) == nil)
    #expect(KeepsakeJSONEncoder().encodeArray([Tagged.text("a")], reusing: nil) == nil)
    #expect(KeepsakeJSONEncoder().encodeArray([AnyHolding(value: 1)], reusing: nil) == nil)
    // Plain data, optionals and collections of values do.
    #expect(KeepsakeJSONEncoder().encodeArray([Measure.none, .length(1)], reusing: nil) != nil)
    #expect(
      KeepsakeJSONEncoder().encodeArray([Tree(children: [Tree(children: [])])], reusing: nil) != nil
    )
    #expect(KeepsakeJSONEncoder().encodeArray([["a": [1]]], reusing: nil) != nil)
    #expect(KeepsakeJSONEncoder().encodeArray([Optional(Data([1]))], reusing: nil) != nil)
  }

  @Test("An element that cannot be encoded leaves the error to the usual way")
  func errorsGoTheUsualWay() throws {
    let first = try #require(KeepsakeJSONEncoder().encodeArray([1.0, 2.0], reusing: nil))
    #expect(KeepsakeJSONEncoder().encodeArray([1.0, .nan], reusing: first) == nil)
    #expect(KeepsakeJSONEncoder().encodeArray([Failing()], reusing: nil) == nil)
  }

  @Test("An element only Foundation's encoder writes leaves the array to the usual way")
  func foundationOnlyGoesTheUsualWay() throws {
    let first = try #require(KeepsakeJSONEncoder().encodeArray([Wrapped(value: 1)], reusing: nil))
    #expect(first.bytes == (try KeepsakeJSONEncoder().encode([Wrapped(value: 1)])))
    let values = [Wrapped(value: 1), Wrapped(value: 2, throughSuperEncoder: true)]
    #expect(KeepsakeJSONEncoder().encodeArray(values, reusing: first) == nil)
    #expect(
      try KeepsakeJSONEncoder().encode(values) == JSONEncoderWithSortedKeys.encode(values),
      "the usual way writes what Foundation writes")
  }

  /// The array written through `memo`, checked against a whole encoding of it.
  private func written<Element: Encodable>(
    _ elements: [Element], reusing memo: JSONArrayEncodingMemo<Element>?, round: Int = 0
  ) throws -> JSONArrayEncodingMemo<Element> {
    let memo = try #require(KeepsakeJSONEncoder().encodeArray(elements, reusing: memo))
    // NB: not counted: only the memo's encodings are.
    let whole = try EncodeCounter.$current.withValue(nil) {
      try KeepsakeJSONEncoder().encode(elements)
    }
    #expect(
      memo.bytes == whole,
      "round \(round): \(String(decoding: memo.bytes, as: UTF8.self)) ≠ \(String(decoding: whole, as: UTF8.self))"
    )
    return memo
  }
}

/// Counts the `Note`s encoded while it is current.
private final class EncodeCounter: @unchecked Sendable {
  // NB: `@unchecked`: used by one test's task at a time, synchronously.
  var count = 0
  @TaskLocal static var current: EncodeCounter?
}

private enum Kind: String, Codable, CaseIterable {
  case plain, list, quote
}

private struct Note: Encodable {
  var id: Int
  var text: String
  var isPinned = false
  var kind = Kind.plain
  var tags: [String] = []
  var score: Double? = nil
  var created = Date(timeIntervalSinceReferenceDate: 0)
  var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
  var attributes: [String: Int] = [:]
  var link: URL? = nil

  init(id: Int, text: String) {
    self.id = id
    self.text = text
  }

  func encode(to encoder: any Encoder) throws {
    EncodeCounter.current?.count += 1
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(text, forKey: .text)
    try container.encode(isPinned, forKey: .isPinned)
    try container.encode(kind, forKey: .kind)
    try container.encode(tags, forKey: .tags)
    try container.encodeIfPresent(score, forKey: .score)
    try container.encode(created, forKey: .created)
    try container.encode(uuid, forKey: .uuid)
    try container.encode(attributes, forKey: .attributes)
    try container.encodeIfPresent(link, forKey: .link)
  }

  private enum CodingKeys: String, CodingKey {
    case id, text, isPinned, kind, tags, score, created, uuid, attributes, link
  }
}

private struct Envelope<Content: Encodable>: Encodable {
  var content: Content
  var version: Int
}

/// Nested arrays, `depth` deep.
private struct DeepArrays: Encodable {
  var depth: Int
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    if depth > 0 { try container.encode(DeepArrays(depth: depth - 1)) }
  }
}

private final class Box: Encodable, @unchecked Sendable {
  var count: Int
  init(count: Int) { self.count = count }
}

private struct Holding: Encodable {
  var box: Box
}

private enum Tagged: Encodable {
  case none
  case number(Int)
  case text(String)
}

private enum Measure: Encodable {
  case none
  case length(Double)
}

private struct AnyHolding: Encodable {
  var value: any Encodable
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

private struct Tree: Encodable {
  var children: [Tree]
}

/// A value that writes itself through `superEncoder()` when asked: only Foundation's encoder
/// writes that.
private struct Wrapped: Encodable {
  var value: Int
  var throughSuperEncoder = false

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    if throughSuperEncoder {
      var inner = container.superEncoder().singleValueContainer()
      try inner.encode(value)
    } else {
      try container.encode(value, forKey: .value)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case value
  }
}

private enum JSONEncoderWithSortedKeys {
  static func encode<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(value)
  }
}

private struct Failing: Encodable {
  struct Refused: Error {}
  func encode(to encoder: any Encoder) throws { throw Refused() }
}

extension SplitMix {
  /// One random change of `notes`: an edit of a field, an insertion, a removal or a move.
  fileprivate mutating func edit(_ notes: inout [Note]) {
    let choice = next() % 10
    guard !notes.isEmpty, choice >= 3 else {
      let id = Int(next() % 10_000)
      notes.insert(
        Note(id: id, text: "n\(id)"), at: notes.isEmpty ? 0 : Int(next() % UInt64(notes.count + 1)))
      return
    }
    let index = Int(next() % UInt64(notes.count))
    switch choice {
    case 3: notes.remove(at: index)
    case 4: notes.removeSubrange(index..<min(notes.count, index + Int(next() % 12)))
    case 5: notes.append(notes[index])
    case 6: notes[index].tags.append(next() % 2 == 0 ? "a/b" : "t\(next() % 5)")
    case 7: notes[index].score = next() % 3 == 0 ? nil : Double(next() % 1000) / 8
    case 8:
      notes[index].attributes["k\(next() % 4)"] = Int(next() % 9)
      notes[index].link = next() % 2 == 0 ? nil : URL(string: "https://example.com/\(next() % 9)")
    default:
      notes[index].text += "\u{1}é"
      notes[index].isPinned.toggle()
      notes[index].kind = Kind.allCases[Int(next() % 3)]
    }
  }
}
