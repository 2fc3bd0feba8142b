import Foundation

/// Random values for the differential campaign: strings with every kind of character JSON
/// escapes or may trip over, numbers from zero to the extremes, nested optionals, arrays and
/// dictionaries.
struct DiffValues {
  var random: SeededGenerator

  init(seed: UInt64, item: Int) {
    random = SeededGenerator(seed: seed, item: item)
  }

  mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

  mutating func pick<T>(_ choices: [T]) -> T {
    choices[Int.random(in: 0..<choices.count, using: &random)]
  }

  // MARK: - Strings

  private static let pieces = [
    "a", "Z", "0", " ", "/", "\\", "\"", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1}",
    "\u{1F}", "\u{7F}", "\u{80}", "é", "e\u{301}", "ß", "日本語", "🎉", "👨‍👩‍👧", "🏳️‍🌈", "\u{2028}",
    "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "\u{212A}", "K", "<", "&", "'", "\\u0041", "{}", "[]",
    ",", ":", "null", "true", "1e5", "café", "naïve", "Ελληνικά", "עברית", "العربية", "\u{200B}",
  ]

  mutating func string(maxPieces: Int = 12) -> String {
    if chance(10) { return "" }
    var text = ""
    for _ in 0..<Int.random(in: 1...maxPieces, using: &random) {
      if chance(40) {
        text += String(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random)))
      } else {
        text += pick(Self.pieces)
      }
    }
    return text
  }

  /// A key: mostly plain, sometimes escaped, unicode or empty (sorting must follow the bytes).
  mutating func key() -> String {
    if chance(60) {
      return pick(["a", "b", "B", "a10", "a2", "_", "id", "body", "z", "Zed", "aa", "ab"])
    }
    return string(maxPieces: 3)
  }

  // MARK: - Numbers

  mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
    switch Int.random(in: 0..<6, using: &random) {
    case 0: return 0
    case 1: return T.max
    case 2: return T.min
    case 3: return T(truncatingIfNeeded: Int.random(in: -1000...1000, using: &random))
    default: return T.random(in: T.min...T.max, using: &random)
    }
  }

  mutating func double() -> Double {
    switch Int.random(in: 0..<12, using: &random) {
    case 0: return 0
    case 1: return -0.0
    case 2: return pick([1, -1, 0.1, 0.5, 1e15, 1e16, 1e-7, 123.456, 100, 1e21, 2e-308])
    case 3: return .greatestFiniteMagnitude * (chance(50) ? 1 : -1)
    case 4: return .leastNonzeroMagnitude
    case 5: return .leastNormalMagnitude
    case 6: return Double(Int.random(in: -(1 << 53)...(1 << 53), using: &random))
    case 7: return Double(Int64.random(in: .min ... .max, using: &random))
    case 8: return Double.random(in: -1...1, using: &random)
    case 9:
      return Double(
        sign: chance(50) ? .plus : .minus, exponent: Int.random(in: -1074...1023, using: &random),
        significand: Double.random(in: 1..<2, using: &random))
    default: return Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
    }
  }

  mutating func finiteDouble() -> Double {
    let value = double()
    return value.isFinite ? value : 1.5
  }

  mutating func float() -> Float {
    switch Int.random(in: 0..<6, using: &random) {
    case 0: return 0
    case 1:
      return pick([
        0.1, 1e10, 16_777_216, 1.5, -0.0, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
      ])
    case 2: return Float(Int.random(in: -100_000...100_000, using: &random))
    case 3: return Float.random(in: -1e6...1e6, using: &random)
    default:
      let value = Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &random))
      return value.isFinite ? value : 2.5
    }
  }

  // MARK: - Models

  mutating func document(depth: Int = 3) -> DiffDocument {
    DiffDocument(
      id: UUID(),
      title: string(),
      note: chance(50) ? string() : nil,
      count: integer(Int.self),
      small: integer(Int8.self),
      byte: integer(UInt8.self),
      big: integer(Int64.self),
      unsigned: integer(UInt64.self),
      ratio: finiteDouble(),
      single: float(),
      flag: chance(50),
      created: Date(timeIntervalSinceReferenceDate: finiteDouble()),
      blob: Data(
        (0..<Int.random(in: 0...40, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        }),
      link: chance(50)
        ? URL(
          string: pick([
            "https://example.com/a/b?c=d&e=f#g", "file:///tmp/x%20y.json", "mailto:a@b.c",
            "https://例え.jp/パス", "relative/path", "https://a.b/\\\"q\\\"",
          ])) : nil,
      amount: Decimal(string: pick(["0", "1.5", "-12.340", "1e30", "3.14159265358979323846"]))
        ?? 0,
      numbers: (0..<Int.random(in: 0...6, using: &random)).map { _ in integer(Int.self) },
      scores: Dictionary(
        (0..<Int.random(in: 0...5, using: &random)).map { _ in (key(), finiteDouble()) },
        uniquingKeysWith: { first, _ in first }),
      byIndex: Dictionary(
        (0..<Int.random(in: 0...4, using: &random)).map { _ in
          (Int.random(in: -20...20, using: &random), string(maxPieces: 3))
        }, uniquingKeysWith: { first, _ in first }),
      children: (0..<Int.random(in: 0...3, using: &random)).map { _ in item() },
      nested: (0..<Int.random(in: 0...3, using: &random)).map { _ in
        (0..<Int.random(in: 0...3, using: &random)).map { _ in
          chance(30) ? nil : string(maxPieces: 2)
        }
      },
      choice: choice(),
      kind: pick(DiffKind.allCases),
      level: pick(DiffLevel.allCases),
      tree: chance(60) ? tree(depth: depth) : nil)
  }

  mutating func item() -> DiffItem {
    DiffItem(
      name: string(),
      value: chance(50) ? finiteDouble() : nil,
      tags: (0..<Int.random(in: 0...4, using: &random)).map { _ in string(maxPieces: 2) },
      flags: (0..<Int.random(in: 0...3, using: &random)).map { _ in chance(30) ? nil : chance(50) },
      id: chance(50) ? UUID() : nil)
  }

  mutating func choice() -> DiffChoice {
    switch Int.random(in: 0..<4, using: &random) {
    case 0: return .none
    case 1: return .text(string())
    case 2: return .pair(integer(Int.self), label: chance(50) ? string(maxPieces: 2) : nil)
    default: return .item(item())
    }
  }

  mutating func tree(depth: Int) -> DiffTree {
    guard depth > 0, chance(70) else { return .leaf(integer(Int.self)) }
    if chance(50) { return .node(key(), tree(depth: depth - 1)) }
    return .list((0..<Int.random(in: 0...3, using: &random)).map { _ in tree(depth: depth - 1) })
  }

}

/// Arrays nested `depth` deep (`[[[]]]` is 3), encoded and decoded through unkeyed containers.
struct DiffNest: Codable, Equatable, Sendable {
  var depth: Int

  init(depth: Int) { self.depth = depth }

  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    depth = container.isAtEnd ? 1 : try container.decode(DiffNest.self).depth + 1
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    if depth > 1 { try container.encode(DiffNest(depth: depth - 1)) }
  }
}
