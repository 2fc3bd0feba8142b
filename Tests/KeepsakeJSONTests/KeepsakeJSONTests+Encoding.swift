import DraftsFeature
import Foundation
import KeepsakeJSON
import Testing

/// The encoder writes Foundation's bytes, and refuses what Foundation refuses.
extension KeepsakeJSONTests {
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
      EncodingProbe("coding paths under keys and positions", PathTree(failing: false)),
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
      EncodingProbe("NaN under keys and positions", PathTree(failing: true)),
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

  // MARK: - Helpers

  static let foundationEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }()

  fileprivate func text<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try KeepsakeJSONEncoder().encode(value), as: UTF8.self)
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

/// Writes the coding path it is encoded at, as its encoder reports it.
private struct PathEcho: Encodable, Sendable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(describe(encoder.codingPath))
  }
}

/// The keys of `path`, with their integer values.
private func describe(_ path: [any CodingKey]) -> String {
  path.map { "\($0.stringValue)#\($0.intValue.map(String.init) ?? "-")" }.joined(separator: "/")
}

/// Values and containers nested under keys and array positions, each writing the coding path
/// its encoder or container reports; `failing`, with a NaN at the deepest place.
private struct PathTree: Encodable, Sendable {
  enum Key: String, CodingKey { case a, b, c, d }
  var failing: Bool

  func encode(to encoder: any Encoder) throws {
    var root = encoder.container(keyedBy: Key.self)
    try root.encode(PathEcho(), forKey: .a)
    var inner = root.nestedContainer(keyedBy: Key.self, forKey: .b)
    try inner.encode(describe(inner.codingPath), forKey: .a)
    try inner.encode([[PathEcho()], [PathEcho(), PathEcho()]], forKey: .b)
    var list = inner.nestedUnkeyedContainer(forKey: .c)
    try list.encode(PathEcho())
    try list.encode(["k": PathEcho()])
    var deeper = list.nestedContainer(keyedBy: Key.self)
    try deeper.encode(describe(deeper.codingPath), forKey: .d)
    try list.encode(describe(list.codingPath))
    if failing { try list.encode(["x": [1, Double.nan]]) }
    try root.encode(PathEcho(), forKey: .d)
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
