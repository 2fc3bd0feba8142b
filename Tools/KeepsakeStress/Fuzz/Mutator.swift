import Foundation
import Keepsake

/// Damages a file the ways disks, sync tools, editors and bugs do: flipped bits, truncation,
/// duplicated or deleted bytes, wrong JSON types, huge numbers, deep nesting, invalid UTF-8 and
/// version fields of every type.
///
/// Every case follows from the seed and its index alone (``FuzzCase/make(seed:index:)``), so a
/// case that breaks something is reproduced without replaying the others.
public enum Mutator {
  /// The kinds of damage, drawn in turn for random cases.
  public enum Kind: String, CaseIterable, Sendable {
    case bitFlip = "bit flip"
    case truncation
    case duplicatedBytes = "duplicated bytes"
    case deletedBytes = "deleted bytes"
    case insertedBytes = "inserted bytes"
    case wrongType = "wrong JSON type"
    case hugeNumber = "huge number"
    case deepNesting = "deep nesting"
    case invalidUTF8 = "invalid UTF-8"
    case versionField = "version field"
    case stacked = "several at once"
  }

  /// Applies one random damage of `kind` to `bytes`; returns the damaged bytes and what was done.
  public static func mutate(
    _ bytes: Data, kind: Kind, using random: inout SeededGenerator
  ) -> (Data, String) {
    var data = [UInt8](bytes)
    switch kind {
    case .bitFlip:
      let flips = Int.random(in: 1...8, using: &random)
      var offsets: [Int] = []
      for _ in 0..<flips where !data.isEmpty {
        let offset = Int.random(in: 0..<data.count, using: &random)
        data[offset] ^= 1 << UInt8.random(in: 0...7, using: &random)
        offsets.append(offset)
      }
      return (Data(data), "flipped bits at \(offsets)")
    case .truncation:
      let length = Int.random(in: 0...data.count, using: &random)
      return (Data(data.prefix(length)), "truncated to \(length) bytes")
    case .duplicatedBytes:
      let range = randomRange(in: data.count, using: &random)
      let at = Int.random(in: 0...data.count, using: &random)
      data.insert(contentsOf: data[range], at: at)
      return (Data(data), "bytes \(range) duplicated at \(at)")
    case .deletedBytes:
      let range = randomRange(in: data.count, using: &random)
      data.removeSubrange(range)
      return (Data(data), "bytes \(range) deleted")
    case .insertedBytes:
      let token = junk.randomElement(using: &random) ?? "\u{0}"
      let at = Int.random(in: 0...data.count, using: &random)
      data.insert(contentsOf: Array(token.utf8), at: at)
      return (Data(data), "inserted \(token.debugDescription) at \(at)")
    case .wrongType:
      return wrongType(bytes, using: &random)
    case .hugeNumber:
      return hugeNumber(bytes, using: &random)
    case .deepNesting:
      let depth = [100, 511, 512, 513, 1000, 10_000, 100_000].randomElement(using: &random) ?? 1000
      let shape = Int.random(in: 0..<deepShapes.count, using: &random)
      return (deepShapes[shape].make(depth), "\(deepShapes[shape].name), depth \(depth)")
    case .invalidUTF8:
      let sequence = invalidSequences.randomElement(using: &random) ?? [0xFF]
      let at = Int.random(in: 0...data.count, using: &random)
      data.insert(contentsOf: sequence, at: at)
      return (Data(data), "inserted bytes \(sequence) at \(at)")
    case .versionField:
      let version = versionTokens.randomElement(using: &random) ?? "null"
      return (envelope(version: version, content: bytes), "version \(version)")
    case .stacked:
      var descriptions: [String] = []
      var damaged = bytes
      let simple: [Kind] = [
        .bitFlip, .duplicatedBytes, .deletedBytes, .insertedBytes, .invalidUTF8,
      ]
      for _ in 0..<Int.random(in: 2...3, using: &random) {
        let kind = simple.randomElement(using: &random) ?? .bitFlip
        let (next, description) = mutate(damaged, kind: kind, using: &random)
        damaged = next
        descriptions.append(description)
      }
      return (damaged, descriptions.joined(separator: ", then "))
    }
  }

  // MARK: - Tables

  /// Values of `"version"` of every JSON type, and integers around the supported range.
  public static let versionTokens = [
    "null", "true", "false", "\"3\"", "3.0", "3.5", "-1", "0", "1", "2", "3", "4", "1e3",
    "99999999999999999999", "-99999999999999999999", "[]", "[3]", "{}", "{\"major\":3}", "\"\"",
  ]

  /// Numbers a parser may choke on.
  public static let hugeNumbers = [
    "1e999999", "-1e999999", "123456789012345678901234567890", "9223372036854775808",
    "-9223372036854775809", "1e-400", "-0", "0.000000000000000000000000000001", "1E+308",
    String(repeating: "9", count: 10_000),
  ]

  /// Byte sequences that are not UTF-8: a lone continuation byte, an overlong encoding, an
  /// encoded surrogate, a truncated sequence, bytes never valid, and an escaped lone surrogate.
  public static let invalidSequences: [[UInt8]] = [
    [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xFF], [0xFE, 0xFF],
    [0xF4, 0x90, 0x80, 0x80], Array("\\uD800".utf8), Array("\\uDC00\\uD800".utf8),
  ]

  private static let junk = [
    "\u{0}", ",", "]", "}", "[", "{", "\"", ":", "null", "NaN", "Infinity", "//", "\u{FEFF}",
    "\\", "\\u", "\"\\u00", " \n\t ", "true", "<<<<<<< HEAD\n", "=======\n",
  ]

  /// Documents nested `depth` levels deep, balanced or not, bare or in an envelope.
  static let deepShapes: [(name: String, make: @Sendable (Int) -> Data)] = [
    ("unclosed arrays", { Data(String(repeating: "[", count: $0).utf8) }),
    ("unclosed objects", { Data(String(repeating: "{\"a\":", count: $0).utf8) }),
    (
      "balanced arrays in an envelope",
      {
        Data(
          ("{\"version\":3,\"content\":" + String(repeating: "[", count: $0)
            + String(repeating: "]", count: $0) + "}").utf8)
      }
    ),
    (
      "balanced arrays, bare",
      { Data((String(repeating: "[", count: $0) + String(repeating: "]", count: $0)).utf8) }
    ),
    (
      "nested objects in a draft",
      {
        Data(
          ("{\"version\":3,\"content\":[{\"id\":" + String(repeating: "{\"x\":", count: $0) + "1"
            + String(repeating: "}", count: $0) + "}]}").utf8)
      }
    ),
  ]

  // MARK: - Helpers

  /// An envelope with a raw `version` token around the content of `bytes` (or `bytes` itself).
  static func envelope(version: String, content bytes: Data) -> Data {
    var content = bytes
    if let document = try? JSONValue(parsing: bytes), case .object(let object) = document,
      let inner = object["content"]
    {
      content = inner.jsonData()
    }
    return Data("{\"version\":\(version),\"content\":".utf8) + content + Data("}".utf8)
  }

  private static func randomRange(in count: Int, using random: inout SeededGenerator) -> Range<Int>
  {
    guard count > 0 else { return 0..<0 }
    let start = Int.random(in: 0..<count, using: &random)
    let length = Int.random(in: 1...min(64, count - start), using: &random)
    return start..<(start + length)
  }

  private static func wrongType(_ bytes: Data, using random: inout SeededGenerator) -> (
    Data, String
  ) {
    guard let document = try? JSONValue(parsing: bytes) else { return (bytes, "unchanged") }
    let paths = allPaths(document)
    guard let path = paths.randomElement(using: &random) else { return (bytes, "unchanged") }
    let replacements: [JSONValue] = [
      .null, .bool(true), .int(42), .double(-0.5), .string("texto"), .array([.int(1)]),
      .object(["x": .null]),
    ]
    let current = document.value(atPath: path)
    let others = replacements.filter { $0.typeName != current?.typeName }
    let replacement = others.randomElement(using: &random) ?? .null
    let changed = document.replacing(atPath: path, with: replacement)
    return (changed.jsonData(), "\(JSONPathComponent.render(path)) became \(replacement.typeName)")
  }

  private static func hugeNumber(_ bytes: Data, using random: inout SeededGenerator) -> (
    Data, String
  ) {
    let number = hugeNumbers.randomElement(using: &random) ?? "1e999999"
    let described = number.count > 40 ? "\(number.prefix(10))... (\(number.count) digits)" : number
    guard let document = try? JSONValue(parsing: bytes),
      let path = allPaths(document).randomElement(using: &random)
    else { return (bytes, "unchanged") }
    // NB: JSONValue cannot hold these numbers: put a marker string there, then swap in the
    // number's text, so the document stays valid JSON and only the number is extreme.
    let marker = "\u{1}huge\u{1}"
    let text = String(
      decoding: document.replacing(atPath: path, with: .string(marker)).jsonData(), as: UTF8.self)
    let escaped = String(decoding: JSONValue.string(marker).jsonData(), as: UTF8.self)
    let replaced = text.replacingOccurrences(of: escaped, with: number)
    return (Data(replaced.utf8), "\(JSONPathComponent.render(path)) became \(described)")
  }

  private static func allPaths(_ value: JSONValue, prefix: [JSONPathComponent] = [])
    -> [[JSONPathComponent]]
  {
    var paths = [prefix]
    switch value {
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        paths += allPaths(element, prefix: prefix + [.index(index)])
      }
    case .object(let object):
      for key in object.keys.sorted() {
        if let element = object[key] { paths += allPaths(element, prefix: prefix + [.key(key)]) }
      }
    default:
      break
    }
    return paths
  }
}

extension JSONValue {
  fileprivate func value(atPath path: [JSONPathComponent]) -> JSONValue? {
    guard let step = path.first else { return self }
    let child: JSONValue? =
      switch (self, step) {
      case (.array(let elements), .index(let index)):
        elements.indices.contains(index) ? elements[index] : nil
      case (.object(let object), .key(let key)): object[key]
      default: nil
      }
    return child?.value(atPath: Array(path.dropFirst()))
  }

  fileprivate func replacing(atPath path: [JSONPathComponent], with replacement: JSONValue)
    -> JSONValue
  {
    guard let step = path.first else { return replacement }
    let rest = Array(path.dropFirst())
    switch (self, step) {
    case (.array(var elements), .index(let index)) where elements.indices.contains(index):
      elements[index] = elements[index].replacing(atPath: rest, with: replacement)
      return .array(elements)
    case (.object(var object), .key(let key)):
      if let child = object[key] { object[key] = child.replacing(atPath: rest, with: replacement) }
      return .object(object)
    default:
      return self
    }
  }
}
