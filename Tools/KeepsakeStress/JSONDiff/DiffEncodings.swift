import Foundation

/// A value whose `encode(to:)` uses containers in the unusual ways Foundation's encoder supports.
///
/// A key written twice, nested containers used after their parent went on, the same nested
/// container asked for twice, `superEncoder()`, a value that encodes nothing, a non-finite float
/// refused and caught, keys that sort by their raw bytes or are equal as Swift strings, and
/// coding paths written into the output. Keepsake's encoder writes most in one pass and hands the
/// rest to Foundation; either way the bytes must be Foundation's.
///
/// It avoids the patterns that make Foundation's encoder trap (two single values, a keyed and an
/// unkeyed container for one value, a nested container for a key that holds something else than
/// an object).
struct DiffOddEncoding: Encodable {
  /// Which patterns to use, in order (see ``encode(to:)``), and how deep to go on.
  var steps: [Int]
  var depth: Int

  static let stepCount = 22

  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ name: String) { self.stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
      self.stringValue = "\(intValue)"
      self.intValue = intValue
    }
  }

  /// Encodes nothing at all (Foundation writes `{}`).
  struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
  }

  /// Writes its encoder's coding path, and its containers', as strings, and values that write
  /// their own encoder's path from inside its nested containers (Foundation leaves the nested
  /// containers' keys out of those).
  struct PathWriter: Encodable {
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(DiffInspector.renderPath(encoder.codingPath), forKey: Key("encoder"))
      try container.encode(DiffInspector.renderPath(container.codingPath), forKey: Key("keyed"))
      var nested = container.nestedUnkeyedContainer(forKey: Key("nested"))
      try nested.encode(DiffInspector.renderPath(nested.codingPath))
      try nested.encode(nested.count)
      try nested.encode(EncoderPath())
      var deeper = nested.nestedContainer(keyedBy: Key.self)
      try deeper.encode(DiffInspector.renderPath(deeper.codingPath), forKey: Key("deeper"))
      try deeper.encode([EncoderPath()], forKey: Key("value"))
    }
  }

  /// Writes its encoder's coding path as its single value.
  struct EncoderPath: Encodable {
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(DiffInspector.renderPath(encoder.codingPath))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    var kept: KeyedEncodingContainer<Key>?
    for (position, step) in steps.enumerated() {
      let key = Key("k\(position % 7)")
      switch step {
      case 0: try container.encode(position, forKey: key)
      case 1: try container.encode("twice \(position)", forKey: Key("dup"))
      case 2:
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("n\(position)"))
        try nested.encode(true, forKey: Key("inner"))
        kept = nested
      case 3:
        // A nested container used again after its parent went on.
        try kept?.encode(position, forKey: Key("later"))
      case 4:
        var same = container.nestedContainer(keyedBy: Key.self, forKey: Key("same"))
        try same.encode(position, forKey: Key("p\(position)"))
      case 5:
        let parent = container.superEncoder()
        var single = parent.singleValueContainer()
        try single.encode("super \(position)")
      case 6:
        try Nothing().encode(to: container.superEncoder(forKey: key))
      case 7: try container.encode(Nothing(), forKey: key)
      case 8:
        // NB: not `Throwing()`: after an error thrown inside a nested value, Foundation reuses that
        // value's half-written container for the next value of the same container (its output
        // then holds the failed value's members, or it traps). Keepsake's encoder keeps nothing
        // of a failed value; `KeepsakeJSONTests` pins that difference.
        _ = try? container.encode(Float.nan, forKey: key)
      case 9: _ = try? container.encode(Double.nan, forKey: key)
      case 10: try container.encodeNil(forKey: key)
      case 11: try container.encodeIfPresent(Int?.none, forKey: key)
      case 12: try container.encode(Int?.none, forKey: key)
      case 13:
        for name in ["a/b", "a0", "\u{7F}", "é", "e\u{301}", "z", "Z", "", "\u{212A}", "K"] {
          try container.encode(name, forKey: Key(name))
        }
      case 14: try container.encode(PathWriter(), forKey: key)
      case 15:
        var list = container.nestedUnkeyedContainer(forKey: Key("list\(position)"))
        try list.encode(position)
        var inner = list.nestedContainer(keyedBy: Key.self)
        try list.encode("after")
        try inner.encode(1, forKey: Key("late"))
        _ = try? list.encode(Float.infinity)
        try list.encode(Date(timeIntervalSinceReferenceDate: 0.5))
      case 16:
        var list = container.nestedUnkeyedContainer(forKey: Key("supers\(position)"))
        try list.encode(1)
        try "middle".encode(to: list.superEncoder())
        try list.encode(3)
      case 17:
        // The same container asked for again merges into the first.
        var again = encoder.container(keyedBy: Key.self)
        try again.encode(position, forKey: Key("again"))
      case 18:
        if depth > 0 {
          try container.encode(
            DiffOddEncoding(steps: steps.reversed(), depth: depth - 1), forKey: key)
        }
      case 19:
        try container.encode(
          [UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))], forKey: key)
      case 20:
        // An object written as a value, then opened again as a nested container: they merge.
        try container.encode(PathWriter(), forKey: Key("m\(position)"))
        var merged = container.nestedContainer(keyedBy: Key.self, forKey: Key("m\(position)"))
        try merged.encode(position, forKey: Key("merged"))
      default:
        try container.encode(Data([0xFB, 0xFF]), forKey: key)
        try container.encode(URL(string: "https://a.b/c d"), forKey: Key("url"))
        try container.encode(Decimal(string: "-0.000123"), forKey: Key("decimal"))
      }
    }
  }
}
