import DraftsFeature
import Foundation
import KeepsakeJSON
import Testing

/// The decoder accepts what Foundation accepts, to the same values, and refuses the rest with
/// Foundation's errors.
extension KeepsakeJSONTests {
  @Test(
    "Accepts what Foundation accepts, to the same values",
    arguments: [
      "{\"a\":1,\"l\":[1,2,]}", "{\"a\":1,}", " { \"a\" : 1 , \"l\" : [ 1 , 2 ] } ",
      "\t{\r\n\"a\"\t:\n1\r}\n", "{\"a\":1,\"a\":2}",
      "{\"a\":1,\"b\":01}", "{\"a\":1,\"b\":1-2.e}", "{\"a\":1,\"b\":\"\\q\"}", "{\"a\":1.0}",
      "{\"a\":1e2}", "{\"a\":-0}", "{\"a\":1.0000000000000001}", "{\"a\":123456789012345678.5}",
      "{\"\\u0061\":3}", "\u{FEFF}{\"a\":1}", "{\"a\":1,\"b\":\"a\tb\"}",
    ])
  func acceptsLikeFoundation(json: String) {
    let data = Data(json.utf8)
    let keepsake = outcome { try KeepsakeJSONDecoder().decode(Counted.self, from: data) }
    #expect(keepsake == outcome { try JSONDecoder().decode(Counted.self, from: data) })
    #expect(keepsake.hasPrefix("ok"), "\(keepsake)")
  }

  @Test(
    "Refuses what Foundation refuses, with the same case, coding path and message",
    arguments: [
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":1,"pinned":true,"tags":[]}]"#,
        "typeMismatch(String) [\"Index 0\"#0, \"body\"#-] Expected to decode String but found number instead."
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"x","tags":[]}]"#,
        "keyNotFound(\"pinned\") [\"Index 0\"#0] No value associated with key CodingKeys(stringValue: \"pinned\", intValue: nil) (\"pinned\")."
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":null,"pinned":true,"tags":[]}]"#,
        "valueNotFound(String) [\"Index 0\"#0, \"body\"#-] Cannot get value of type String -- found null value instead"
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"x","pinned":null,"tags":[]}]"#,
        "typeMismatch(Bool) [\"Index 0\"#0, \"pinned\"#-] Expected to decode Bool but found null instead."
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8","body":"x","pinned":true,"tags":[]}]"#,
        "dataCorrupted [\"Index 0\"#0, \"id\"#-] Attempted to decode UUID from invalid UUID string."
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"x","pinned":true,"tags":["a",2]}]"#,
        "typeMismatch(String) [\"Index 0\"#0, \"tags\"#-, \"Index 1\"#1] Expected to decode String but found number instead."
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"x","pinned":true,"tags":{}}]"#,
        "typeMismatch(Array<Any>) [\"Index 0\"#0, \"tags\"#-] Expected to decode Array<Any> but found a dictionary instead."
      ),
      DecodingProbe(
        #"{"a":1}"#,
        "typeMismatch(Array<Any>) [] Expected to decode Array<Any> but found a dictionary instead."),
      DecodingProbe(
        #"[["x"]]"#,
        "typeMismatch(Dictionary<String, Any>) [\"Index 0\"#0] Expected to decode Dictionary<String, Any> but found an array instead."
      ),
      DecodingProbe(
        "[null]",
        "valueNotFound(Dictionary<String, Any>) [\"Index 0\"#0] Cannot get keyed decoding container -- found null value instead"
      ),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"\q","pinned":true,"tags":[]}]"#,
        "dataCorrupted [] The given data was not valid JSON."),
      DecodingProbe(
        #"[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","body":"x","pinned":true,"tags":[]},]x"#,
        "dataCorrupted [] The given data was not valid JSON."),
      DecodingProbe("", "dataCorrupted [] The given data was not valid JSON."),
      DecodingProbe("[1", "dataCorrupted [] The given data was not valid JSON."),
    ])
  func decoderRefusesLikeFoundation(probe: DecodingProbe) {
    let data = Data(probe.json.utf8)
    let keepsake = outcome { try KeepsakeJSONDecoder().decode([Draft].self, from: data) }
    #expect(keepsake == "error " + probe.expected)
    #expect(keepsake == outcome { try JSONDecoder().decode([Draft].self, from: data) })
  }

  @Test(
    "Reads each special type as Foundation does, errors included",
    arguments: [
      ("[12.5,0,-1e3]", "dates"), ("[\"x\"]", "dates"), ("[null]", "dates"),
      ("[\"AQID/w==\",\"\"]", "data"), ("[\"AQID/w\"]", "data"), ("[1]", "data"),
      ("[\"https://a.b\"]", "urls"), ("[\"\"]", "urls"), ("[1.5,-2e40]", "decimals"),
      ("[\"s\"]", "decimals"), ("[\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\"]", "uuids"),
      ("[\"\\u0045621E1F8-C36C-495A-93FC-0C247A3E6E5F\"]", "uuids"), ("[\"{E621E1F8}\"]", "uuids"),
      ("[1e-400]", "doubles"), ("[0e-400]", "doubles"), ("[3e-324]", "doubles"),
      ("[1.7976931348623159e308]", "doubles"), ("[3.4028236e38]", "floats"), ("[256]", "bytes"),
      ("[-0]", "bytes"), ("[1e2]", "bytes"), ("[9223372036854775807.0]", "ints"),
      ("[0e6,0E1]", "doubles"), ("[0e0,0e10,0e+1,-0e1]", "doubles"), ("[0e9]", "floats"),
      ("[0e6]", "ints"),
    ])
  func specialTypes(json: String, kind: String) {
    let data = Data(json.utf8)
    func both<T: Decodable>(_ type: T.Type) -> (String, String) {
      (
        outcome { try KeepsakeJSONDecoder().decode(type, from: data) },
        outcome { try JSONDecoder().decode(type, from: data) }
      )
    }
    let (keepsake, foundation) =
      switch kind {
      case "dates": both([Date].self)
      case "data": both([Data].self)
      case "urls": both([URL].self)
      case "decimals": both([Decimal].self)
      case "uuids": both([UUID].self)
      case "doubles": both([Double].self)
      case "floats": both([Float].self)
      case "bytes": both([UInt8].self)
      default: both([Int].self)
      }
    #expect(keepsake == foundation)
  }

  @Test("Nesting: 512 levels decode, 513 are an error, 100,000 neither trap nor overflow")
  func deepNesting() {
    func arrays(_ depth: Int, closed: Bool) -> Data {
      Data(
        (String(repeating: "[", count: depth)
          + (closed ? String(repeating: "]", count: depth) : "")).utf8)
    }
    #expect(
      outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: arrays(512, closed: true)) }
        == "ok Nest(depth: 512)")
    let invalid = "error dataCorrupted [] The given data was not valid JSON."
    #expect(
      outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: arrays(513, closed: true)) }
        == invalid)
    // NB: Foundation's decoder traps on this one (513 unclosed arrays at the very end).
    #expect(
      outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: arrays(513, closed: false)) }
        == invalid)
    #expect(
      outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: arrays(100_000, closed: false)) }
        == invalid)
    #expect(
      outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: arrays(100_000, closed: true)) }
        == invalid)
    let objects = Data(
      (String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000))
        .utf8)
    #expect(outcome { try KeepsakeJSONDecoder().decode(Nest.self, from: objects) } == invalid)
  }

  @Test("Reads UTF-16 and UTF-32 documents, detected as Foundation detects them")
  func otherEncodings() {
    let utf16 = Data(
      [0xFE, 0xFF] + "{\"a\":1}".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    let utf32 = Data("[1]".unicodeScalars.flatMap { [UInt8($0.value), 0, 0, 0] })
    for data in [utf16, utf32, Data([0xFE, 0xFF, 0x7B]), Data([0x31, 0])] {
      #expect(
        outcome { try KeepsakeJSONDecoder().decode(DiffFree.self, from: data) }
          == outcome { try JSONDecoder().decode(DiffFree.self, from: data) })
    }
  }

  @Test("Keys compare as Swift strings: first duplicate wins, canonically equal keys match")
  func keysAsStrings() throws {
    let data = Data(#"{"\u212A":5,"K":6,"é":1,"e\#u{301}":2}"#.utf8)
    let keys = try KeepsakeJSONDecoder().decode(Keys.self, from: data)
    let foundation = try JSONDecoder().decode(Keys.self, from: data)
    #expect(keys.kelvin == 5 && keys.accent == 1)
    #expect(keys.kelvin == foundation.kelvin && keys.accent == foundation.accent)
    #expect(keys.all.sorted() == foundation.all.sorted())
    // A key that is not ASCII finds a plain one it equals.
    let plain = Data(#"{"K":6}"#.utf8)
    #expect(try KeepsakeJSONDecoder().decode(Kelvin.self, from: plain).value == 6)
    #expect(try JSONDecoder().decode(Kelvin.self, from: plain).value == 6)
  }

  @Test("A container kept after decoding still reads its own copy of the bytes")
  func escapedContainer() throws {
    let kept = try KeepsakeJSONDecoder().decode(Keeper.self, from: Data(#"{"a":"later"}"#.utf8))
    #expect(try kept.container.decode(String.self, forKey: .a) == "later")
  }

  @Test("Decoding keeps nothing alive once it returns")
  func nothingOutlivesDecoding() throws {
    let box = WeakBox()
    let data = Data(#"[{"a":[1,{"b":2}]},{"a":[3]},{"a":[]}]"#.utf8)
    let values = try WeakBox.$current.withValue(box) {
      try KeepsakeJSONDecoder().decode([Spy].self, from: data)
    }
    #expect(values.count == 3)
    #expect(box.decoder == nil, "the decoder (and a copy of the bytes) leaked")
  }
}

/// A drafts document and the error Foundation gives for it.
struct DecodingProbe: Sendable, CustomTestStringConvertible {
  let json: String
  let expected: String
  var testDescription: String { expected }
  init(_ json: String, _ expected: String) {
    self.json = json
    self.expected = expected
  }
}

/// Reads `a` and counts the other keys.
private struct Counted: Decodable, CustomStringConvertible {
  var a: Int
  var description: String { "a=\(a)" }
}

/// A document with keys that are equal as Swift strings but not as bytes.
private struct Keys: Decodable {
  var kelvin: Int
  var accent: Int
  var all: [String]
  enum CodingKeys: String, CodingKey {
    case kelvin = "K"
    case accent = "é"
  }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    kelvin = try container.decode(Int.self, forKey: .kelvin)
    accent = try container.decode(Int.self, forKey: .accent)
    all = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
  }
}

/// A value whose key is spelled with the Kelvin sign, equal to "K" as a Swift string.
private struct Kelvin: Decodable {
  var value: Int
  enum CodingKeys: String, CodingKey {
    case value = "\u{212A}"
  }
}

/// Anything, for documents in other encodings.
private struct DiffFree: Decodable, CustomStringConvertible {
  var description: String
  init(from decoder: any Decoder) throws {
    if let values = try? [Int](from: decoder) {
      description = "\(values)"
    } else {
      description = "\(try [String: Int](from: decoder).sorted { $0.key < $1.key })"
    }
  }
}

/// Where ``Spy`` notes the decoder it saw, weakly.
private final class WeakBox: @unchecked Sendable {
  // NB: written and read by one test's task only.
  weak var decoder: AnyObject?
  @TaskLocal static var current: WeakBox?
}

/// Opens keyed and unkeyed containers, and notes its decoder in the task's ``WeakBox``.
private struct Spy: Decodable {
  enum CodingKeys: CodingKey { case a }
  init(from decoder: any Decoder) throws {
    WeakBox.current?.decoder = decoder as AnyObject
    var list = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .a)
    while !list.isAtEnd {
      if (try? list.decode(Int.self)) == nil { _ = try list.decode([String: Int].self) }
    }
  }
}

/// Keeps its keyed container beyond `init(from:)`.
private struct Keeper: Decodable {
  enum CodingKeys: CodingKey { case a }
  let container: KeyedDecodingContainer<CodingKeys>
  init(from decoder: any Decoder) throws {
    container = try decoder.container(keyedBy: CodingKeys.self)
  }
}
