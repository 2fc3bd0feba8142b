import Foundation

// How an envelope carries its ancestry, `{"ancestry":{"by":"…","versions":["…"]},"content":…,
// "version":N}`, and how it is read back. Older Keepsake builds ignore the key: an envelope is
// decoded by its "version" and "content" keys alone. A version that carries the deletions of a
// kept change adds `"deletions":[{"change":"…","steps":[…]}]` to it (keys are sorted): builds that
// do not know the member read the rest, and their versions no longer carry it.

extension Ancestry: Encodable {
  private enum CodingKeys: String, CodingKey {
    case writer = "by"
    case versions
    case deletions
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(writer, forKey: .writer)
    try container.encode(versions.map(\.text), forKey: .versions)
    if !deletions.isEmpty {
      let items = deletions.map { item in
        JSONValue.object(["change": .string(item.change), "steps": .array(item.steps)])
      }
      try container.encode(EncodedJSON(value: .array(items)), forKey: .deletions)
    }
  }
}

/// A JSON document written through an `Encoder`, as it is.
private struct EncodedJSON: Encodable {
  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  var value: JSONValue

  func encode(to encoder: any Encoder) throws {
    switch value {
    case .object(let members):
      var container = encoder.container(keyedBy: Key.self)
      for (key, member) in members {
        try container.encode(EncodedJSON(value: member), forKey: Key(stringValue: key))
      }
    case .array(let elements):
      var container = encoder.unkeyedContainer()
      for element in elements { try container.encode(EncodedJSON(value: element)) }
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .bool(let flag):
      var container = encoder.singleValueContainer()
      try container.encode(flag)
    case .int(let number):
      var container = encoder.singleValueContainer()
      try container.encode(number)
    case .double(let number):
      var container = encoder.singleValueContainer()
      try container.encode(number)
    case .string(let text):
      var container = encoder.singleValueContainer()
      try container.encode(text)
    }
  }
}

extension Ancestry {
  /// The ancestry `data` carries at its top level, or `nil` when it carries none or one this
  /// build cannot read (which is then treated as none: merges fall back, nothing fails).
  init?(parsing data: Data) {
    if let (ancestry, _) = Self.scanEnvelopePrefix(data) {
      self = ancestry
      return
    }
    // Another layout (a person pretty-printed the file, say): the whole document is parsed.
    guard data.first == UInt8(ascii: "{"), let document = try? JSONValue(reading: data),
      case .object(let top) = document, case .object(let object)? = top["ancestry"],
      case .string(let writer)? = object["by"], Self.isDevice(writer[...]),
      case .array(let items)? = object["versions"]
    else { return nil }
    var versions: [Entry] = []
    for item in items {
      guard case .string(let text) = item, let entry = Entry(parsing: text[...]) else {
        return nil
      }
      versions.append(entry)
    }
    self.init(writer: writer, versions: versions, deletions: Self.deletions(object["deletions"]))
  }

  /// The deletions an ancestry's `"deletions"` member carries; none when it is damaged (merges
  /// then go as without them, as with a build that does not know them).
  private static func deletions(_ member: JSONValue?) -> [Deletions] {
    guard case .array(let items)? = member else { return [] }
    var deletions: [Deletions] = []
    for item in items {
      guard case .string(let change)? = item["change"], change.utf8.count == 12,
        change.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
        case .array(let steps)? = item["steps"]
      else { return [] }
      deletions.append(Deletions(change: change, steps: steps))
    }
    return deletions
  }

  /// Reads the layout Keepsake writes, byte by byte: `{"ancestry":{"by":"W","versions":["E",…]},
  /// "content":`, with `"deletions":[…],` before the versions when the version carries them, and
  /// returns the ancestry and the offset of the content's first byte; `nil` for anything else.
  ///
  /// NB: exact, so the fast path of `VersionedFormat.decode` may take everything after it as the
  /// content: the grammar admits no escapes, spaces or nesting, and an entry never holds a `"`;
  /// the deletions, the one nested member, are found by their brackets outside strings, then
  /// parsed alone as JSON.
  static func scanEnvelopePrefix(_ data: Data) -> (Ancestry, contentOffset: Int)? {
    data.withUnsafeBytes { raw -> (Ancestry, contentOffset: Int)? in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
      func expect(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
          return false
        }
        index += count
        return true
      }
      func string() -> Substring? {
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
          // Only the characters entries and devices are made of.
          let byte = bytes[index]
          let allowed =
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
            || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-")
          guard allowed else { return nil }
          index += 1
        }
        guard index < bytes.count else { return nil }
        let text = String(
          decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return text[...]
      }
      func array() -> JSONValue? {
        let (start, quote, backslash) = (index, UInt8(ascii: "\""), UInt8(ascii: "\\"))
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        var (depth, inString, escaped) = (0, false, false)
        while index < bytes.count {
          let byte = bytes[index]
          index += 1
          if inString {
            if escaped {
              escaped = false
            } else if byte == backslash {
              escaped = true
            } else if byte == quote {
              inString = false
            }
            continue
          }
          switch byte {
          case quote: inString = true
          case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
          case UInt8(ascii: "]"), UInt8(ascii: "}"):
            depth -= 1
            if depth == 0 {
              return try? JSONValue(
                parsing: Data(UnsafeBufferPointer(rebasing: bytes[start..<index])))
            }
          default: break
          }
        }
        return nil
      }
      guard expect(#"{"ancestry":{"by":""#), let writer = string(), isDevice(writer) else {
        return nil
      }
      var deletions: [Deletions] = []
      if expect(#","deletions":"#) {
        guard let member = array() else { return nil }
        deletions = Self.deletions(member)
      }
      guard expect(#","versions":["#) else { return nil }
      var versions: [Entry] = []
      if !expect("]") {
        repeat {
          guard expect("\""), let text = string(), let entry = Entry(parsing: text) else {
            return nil
          }
          versions.append(entry)
        } while expect(",")
        guard expect("]") else { return nil }
      }
      guard expect(#"},"content":"#) else { return nil }
      return (Ancestry(writer: String(writer), versions: versions, deletions: deletions), index)
    }
  }

  /// A device's ID (base 32, as this device makes them), ``mergeWriter`` or ``unknownWriter``.
  static func isDevice(_ text: Substring) -> Bool {
    (1...16).contains(text.count)
      && text.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x32...0x37).contains($0) }
      || text == mergeWriter[...] || text == unknownWriter[...]
  }
}

extension Ancestry.Entry {
  /// `generation.hash.device`, as ``text`` writes it.
  init?(parsing text: Substring) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count <= 15, let generation = Int(parts[0]),
      generation >= 1, parts[1].count == 12,
      parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
      Ancestry.isDevice(parts[2])
    else { return nil }
    self.init(generation: generation, hash: String(parts[1]), device: String(parts[2]))
  }
}
