import Foundation
import KeepsakeJSON
import Testing

/// The byte loops' tails: each loop tests eight bytes at a time, then the last few bytes one at a
/// time, so a byte that matters in the last seven bytes of a string takes another path than the
/// same byte earlier. Here every position of strings up to 19 bytes is tried, which covers a
/// whole word, the tail and the boundary between them.
extension KeepsakeJSONTests {
  /// The characters each loop must stop at, with the spelling Foundation's encoder gives them.
  static let escapedCharacters: [(character: String, spelling: String)] = [
    ("\"", #"\""#), ("\\", #"\\"#), ("/", #"\/"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#),
  ]

  /// Strings of `a`s with `character` at every position, for every length from 1 to 19.
  static func stringsPlacing(_ character: String) -> [(string: String, prefix: Int)] {
    (1...19).flatMap { length in
      (0..<length).map { position in
        let string =
          String(repeating: "a", count: position) + character
          + String(repeating: "a", count: length - position - 1)
        return (string, position)
      }
    }
  }

  @Test(
    "The encoder escapes a quote, backslash, slash or control character in any position",
    arguments: escapedCharacters.indices)
  func encoderEscapesEveryPosition(index: Int) throws {
    let (character, spelling) = Self.escapedCharacters[index]
    for (string, position) in Self.stringsPlacing(character) {
      let expected =
        "[\"" + String(repeating: "a", count: position) + spelling
        + String(repeating: "a", count: string.utf8.count - position - 1) + "\"]"
      let written = String(decoding: try KeepsakeJSONEncoder().encode([string]), as: UTF8.self)
      #expect(written == expected, "\(string.debugDescription)")
      #expect(
        written == String(decoding: try Self.foundationEncoder.encode([string]), as: UTF8.self))
    }
  }

  @Test(
    "The decoder reads an escape in any position as Foundation does",
    arguments: escapedCharacters.indices)
  func decoderUnescapesEveryPosition(index: Int) throws {
    let (character, spelling) = Self.escapedCharacters[index]
    // A control character must be escaped, so a document holds only its escape; the others are
    // also tried as they are, where JSON allows it (a slash).
    let spellings = character == "/" ? [spelling, "/"] : [spelling]
    for spelled in spellings {
      for (string, position) in Self.stringsPlacing(character) {
        let text =
          "[\"" + String(repeating: "a", count: position) + spelled
          + String(repeating: "a", count: string.utf8.count - position - 1) + "\"]"
        let data = Data(text.utf8)
        #expect(try KeepsakeJSONDecoder().decode([String].self, from: data) == [string], "\(text)")
        #expect(try JSONDecoder().decode([String].self, from: data) == [string])
      }
    }
  }

  @Test("The decoder refuses an unescaped control character in any position, as Foundation does")
  func decoderRefusesControlCharacterEveryPosition() {
    for (string, _) in Self.stringsPlacing("\u{1}") {
      let data = Data(("[\"" + string + "\"]").utf8)
      let keepsake = outcome { try KeepsakeJSONDecoder().decode([String].self, from: data) }
      #expect(keepsake.hasPrefix("error dataCorrupted"), "\(string.debugDescription)")
      #expect(keepsake == outcome { try JSONDecoder().decode([String].self, from: data) })
    }
  }

  @Test(
    "A JSON value reads and writes an escape in any position",
    arguments: escapedCharacters.indices)
  func treeEscapesEveryPosition(index: Int) throws {
    let (character, spelling) = Self.escapedCharacters[index]
    // NB: a JSON value writes `/` as it is, unlike Foundation's encoder.
    let written = character == "/" ? "/" : spelling
    for (string, position) in Self.stringsPlacing(character) {
      let text =
        "[\"" + String(repeating: "a", count: position) + written
        + String(repeating: "a", count: string.utf8.count - position - 1) + "\"]"
      #expect(try JSONValue(reading: Data(text.utf8)) == .array([.string(string)]), "\(text)")
      #expect(
        String(decoding: JSONValue.array([.string(string)]).jsonData(), as: UTF8.self) == text)
    }
  }

  @Test("An object of more than 16 members with unusual keys is sorted as Foundation sorts it")
  func manyUnusualKeysSortLikeFoundation() throws {
    // NB: past 16 members, the encoder groups repeated keys through a dictionary rather than a
    // scan, and keys that are escaped or not ASCII are compared as Foundation compares them.
    let value = ManyKeys(
      keys: (0..<20).map { "k\($0)" } + ["é", "e\u{301}", "a/b", "q\"", "\u{1}", "k3", "Z", ""])
    #expect(try KeepsakeJSONEncoder().encode(value) == (try Self.foundationEncoder.encode(value)))
  }
}

/// An object with the given keys in the given order (a repeated key is written again).
private struct ManyKeys: Encodable {
  var keys: [String]
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyKey.self)
    for (index, key) in keys.enumerated() { try container.encode(index, forKey: AnyKey(key)) }
  }
}
