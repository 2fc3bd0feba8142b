import DraftsFeature
import Foundation
import Keepsake
import Testing

/// Keepsake's JSON codec against Foundation's, on the corners where they could part.
@Suite("Keepsake's JSON codec")
struct KeepsakeJSONTests {
  // MARK: - Encoding

  @Test(
    "Writes Foundation's bytes: escapes, numbers, sorted keys, special types",
    arguments: [
      EncodingProbe(["s": "a/b \"q\" \\ \n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F} é 🎉 \u{2028}"]),
      EncodingProbe([
        1.0, 0.1, -0.0, 1e20, 1e-7, 1e16, 1e15, .leastNonzeroMagnitude, 0x1.ac53a7df93d69p66, -2.5,
      ]),
      EncodingProbe([Float(0.1), 1e10, 16_777_216, 1.5, -0.0]),
      EncodingProbe([
        "b": 1, "a": 2, "B": 3, "a10": 4, "a2": 5, "é": 6, "e": 7, "": 8, "a/b": 9, "a0": 10,
      ]),
      EncodingProbe([
        Date(timeIntervalSinceReferenceDate: 12.5), Date(timeIntervalSinceReferenceDate: 0),
      ]),
      EncodingProbe([Data([1, 2, 3, 255]), Data()]),
      EncodingProbe([URL(string: "https://a.b/c?d=e#f")]),
      EncodingProbe([Decimal(string: "12.3400"), Decimal(string: "-1e30")]),
      EncodingProbe([UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")]),
      EncodingProbe([Int8.min, 0, Int8.max]),
      EncodingProbe([UInt64.max]),
      EncodingProbe([Int.min, Int.max]),
      EncodingProbe([1: "a", 10: "b", 2: "c"]),
      EncodingProbe("top level"),
      EncodingProbe(3),
      EncodingProbe(Int?.none),
      EncodingProbe([
        Draft(id: UUID(), body: "Plan ✈️ / \"Zürich\"", pinned: true, tags: ["a", "b"])
      ]),
    ])
  func writesFoundationsBytes(probe: EncodingProbe) {
    #expect(probe.keepsake.hasPrefix("ok"))
    #expect(probe.keepsake == probe.foundation)
  }

  @Test("Spells the cases Foundation spells oddly")
  func oddSpellings() throws {
    #expect(try text(["a/b"]) == #"["a\/b"]"#)
    #expect(try text([1.0, -0.0, 1e20]) == "[1,-0,1e+20]")
    #expect(try text(["b": 1, "B": 2, "a10": 3, "a2": 4]) == #"{"B":2,"a10":3,"a2":4,"b":1}"#)
    #expect(try text(["\u{1F}\u{7F}"]) == #"["\u001f\#u{7F}"]"#)
    #expect(try text([Date(timeIntervalSinceReferenceDate: 12.5)]) == "[12.5]")
  }

  @Test(
    "Refuses what Foundation refuses, with its error and coding path",
    arguments: [
      EncodingProbe("NaN in an array, in an object", ["k": [1, Double.nan]]),
      EncodingProbe("infinity at the top", -Double.infinity),
      EncodingProbe("a Float NaN", ["x": Float.nan]),
      EncodingProbe("a date that is not a number", [Date(timeIntervalSinceReferenceDate: .nan)]),
      EncodingProbe("a value that encodes nothing", Nothing()),
      EncodingProbe("511 arrays deep (fine)", Nest(depth: 511)),
      EncodingProbe("512 arrays deep", Nest(depth: 512)),
      EncodingProbe("NaN below 600 arrays (the NaN wins)", NaNNest(depth: 600)),
    ])
  func encoderRefusesLikeFoundation(probe: EncodingProbe) {
    #expect(probe.keepsake == probe.foundation)
  }

  @Test("A value using superEncoder() is written by Foundation's encoder, byte for byte")
  func superEncoderGoesToFoundation() throws {
    let value = SuperUser()
    #expect(try KeepsakeJSONEncoder().encode(value) == (try Self.foundationEncoder.encode(value)))
    #expect(try text(value) == #"{"list":[1,"middle",3],"super":"parent"}"#)
  }

  @Test("A nested value that throws leaves nothing behind, unlike Foundation")
  func failedValueLeavesNothing() throws {
    // NB: Foundation reuses the failed value's half-written container for the next value of
    // the same container: it writes {"b":{"other":2,"partial":1}} (or traps, when the next value
    // is an array). Keepsake writes what the type meant. Harmless: the bytes decode with either
    // decoder to what the type encoded, and Foundation never wrote the failed value's key.
    #expect(try text(CatchesAFailure()) == #"{"b":{"other":2}}"#)
  }

  // MARK: - Decoding

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

  // MARK: - Helpers

  static let foundationEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }()

  private func text<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try KeepsakeJSONEncoder().encode(value), as: UTF8.self)
  }
}

/// `ok <value>` or `error <case, type, path, message>`, comparable between decoders.
private func outcome<T>(_ body: () throws -> T) -> String {
  do {
    let value = try body()
    if let data = value as? Data { return "ok \(String(decoding: data, as: UTF8.self))" }
    return "ok \(value)"
  } catch let error as DecodingError {
    func path(_ context: DecodingError.Context) -> String {
      "["
        + context.codingPath.map {
          "\($0.stringValue.debugDescription)#\($0.intValue.map(String.init) ?? "-")"
        }
        .joined(separator: ", ") + "]"
    }
    switch error {
    case .typeMismatch(let type, let context):
      return "error typeMismatch(\(type)) \(path(context)) \(context.debugDescription)"
    case .valueNotFound(let type, let context):
      return "error valueNotFound(\(type)) \(path(context)) \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return
        "error keyNotFound(\(key.stringValue.debugDescription)) \(path(context)) \(context.debugDescription)"
    case .dataCorrupted(let context):
      return "error dataCorrupted \(path(context)) \(context.debugDescription)"
    @unknown default:
      return "error \(error)"
    }
  } catch let error as EncodingError {
    guard case .invalidValue(let value, let context) = error else { return "error \(error)" }
    let keys = context.codingPath.map { "\($0.stringValue)#\($0.intValue.map(String.init) ?? "-")" }
    return "error invalidValue(\(type(of: value))) \(keys) \(context.debugDescription)"
  } catch {
    return "error \(error)"
  }
}

/// A value to encode, whose outcome (bytes or error) both encoders must share.
struct EncodingProbe: Sendable, CustomTestStringConvertible {
  let testDescription: String
  let value: any Encodable & Sendable

  init(_ name: String, _ value: any Encodable & Sendable) {
    testDescription = name
    self.value = value
  }

  init<T: Encodable & Sendable>(_ value: T) {
    self.init("\(T.self)", value)
  }

  var keepsake: String { outcome { try KeepsakeJSONEncoder().encode(value) } }
  var foundation: String { outcome { try KeepsakeJSONTests.foundationEncoder.encode(value) } }
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

/// Arrays nested `depth` deep, through unkeyed containers.
private struct Nest: Codable, Sendable {
  var depth: Int
  init(depth: Int) { self.depth = depth }
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    depth = container.isAtEnd ? 1 : try container.decode(Nest.self).depth + 1
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    if depth > 1 { try container.encode(Nest(depth: depth - 1)) }
  }
}

/// Arrays nested `depth` deep around a NaN.
private struct NaNNest: Encodable, Sendable {
  var depth: Int
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    if depth > 1 {
      try container.encode(NaNNest(depth: depth - 1))
    } else {
      try container.encode(Double.nan)
    }
  }
}

private struct Nothing: Encodable, Sendable {
  func encode(to encoder: any Encoder) throws {}
}

private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Uses `superEncoder()` in a keyed and an unkeyed container.
private struct SuperUser: Encodable, Sendable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyKey.self)
    var single = container.superEncoder().singleValueContainer()
    try single.encode("parent")
    var list = container.nestedUnkeyedContainer(forKey: AnyKey("list"))
    try list.encode(1)
    try "middle".encode(to: list.superEncoder())
    try list.encode(3)
  }
}

/// Catches the error of a nested value that threw halfway, then writes another.
private struct CatchesAFailure: Encodable {
  struct Failure: Error {}
  struct Throwing: Encodable {
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: AnyKey.self)
      try container.encode(1, forKey: AnyKey("partial"))
      throw Failure()
    }
  }
  struct Other: Encodable {
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: AnyKey.self)
      try container.encode(2, forKey: AnyKey("other"))
    }
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyKey.self)
    _ = try? container.encode(Throwing(), forKey: AnyKey("a"))
    try container.encode(Other(), forKey: AnyKey("b"))
  }
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
