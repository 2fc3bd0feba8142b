import Foundation

/// Reading one value's bytes: finding where it ends, and checking and converting its contents
/// the way Foundation's `JSONDecoder` does when a type asks for it.
extension JSONDecodingState {
  /// The first byte of the value at `offset`; a missing value reads as `null`.
  @inline(__always)
  func byte(at offset: Int) -> UInt8 {
    offset < 0 ? UInt8(ascii: "n") : source.base[offset]
  }

  func isNumber(at offset: Int) -> Bool {
    let first = byte(at: offset)
    return first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
  }

  /// How Foundation names a JSON value in `typeMismatch` errors.
  func typeDescription(at offset: Int) -> String {
    switch byte(at: offset) {
    case JSONBytes.quote: "a string"
    case UInt8(ascii: "{"): "a dictionary"
    case UInt8(ascii: "["): "an array"
    case UInt8(ascii: "t"), UInt8(ascii: "f"): "bool"
    case UInt8(ascii: "n"): "null"
    default: "number"
    }
  }

  func typeMismatch<T>(_ type: T.Type, at offset: Int, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(
      type,
      .init(
        codingPath: path,
        debugDescription:
          "Expected to decode \(type) but found \(typeDescription(at: offset)) instead."
      ))
  }

  func valueNotFound<T>(_ type: T.Type, _ path: [any CodingKey]) -> DecodingError {
    .valueNotFound(
      type,
      .init(
        codingPath: path,
        debugDescription: "Cannot get value of type \(type) -- found null value instead"))
  }

  // MARK: - Finding ends

  /// The offset of the closing quote of the string whose opening quote is at `offset`.
  func stringContentEnd(from offset: Int) -> Int {
    let base = source.base
    let count = source.count
    var index = offset + 1
    while true {
      index = JSONBytes.firstQuoteOrBackslash(base, from: index, to: count)
      // The scanner checked the string is closed; stop at the end of the bytes regardless.
      guard index < count, base[index] == JSONBytes.backslash else { return index }
      index += base[index + 1] == UInt8(ascii: "u") ? 6 : 2
    }
  }

  /// The offset just after the value at `offset`.
  func skipValue(from offset: Int) -> Int {
    guard offset >= 0 else { return offset }
    let base = source.base
    switch base[offset] {
    case JSONBytes.quote:
      return stringContentEnd(from: offset) + 1
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      return skipContainer(from: offset)
    case UInt8(ascii: "t"), UInt8(ascii: "n"):
      return offset + 4
    case UInt8(ascii: "f"):
      return offset + 5
    default:
      return numberEnd(from: offset)
    }
  }

  func numberEnd(from offset: Int) -> Int {
    let base = source.base
    var index = offset + 1
    while index < source.count, JSONBytes.isNumberByte(base[index]) { index += 1 }
    return index
  }

  private func skipContainer(from offset: Int) -> Int {
    let base = source.base
    let count = source.count
    var depth = 0
    var index = offset
    while index < count {
      switch base[index] {
      case JSONBytes.quote:
        index = stringContentEnd(from: index) + 1
        continue
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if depth == 0 { return index + 1 }
      default:
        break
      }
      index += 1
    }
    return index
  }

  func skipWhitespace(from offset: Int) -> Int {
    let base = source.base
    var index = offset
    while index < source.count, JSONBytes.isWhitespace(base[index]) { index += 1 }
    return index
  }

  // MARK: - Strings

  /// Decodes the string at `offset`; `contentEnd` is its closing quote, when known.
  func decodeString(
    at offset: Int, contentEnd: Int = -1, path: () -> [any CodingKey]
  ) throws -> String {
    switch byte(at: offset) {
    case JSONBytes.quote:
      let end = contentEnd >= 0 ? contentEnd : stringContentEnd(from: offset)
      return try string(from: offset + 1, to: end)
    case UInt8(ascii: "n"):
      throw valueNotFound(String.self, path())
    default:
      throw typeMismatch(String.self, at: offset, path())
    }
  }

  /// The string value of the text between `start` and `end` (a string's content).
  func string(from start: Int, to end: Int) throws(JSONLazyError) -> String {
    let base = source.base
    if !JSONBytes.needsUnescaping(base, from: start, to: end) {
      // NB: invalid UTF-8 is an error, as in Foundation; `String(decoding:)` would replace it.
      // `_tryFromUTF8` is the standard library's entry point that Foundation uses too; the
      // generic `String(validating:as:)` looks up type metadata on every call.
      guard
        let string = String._tryFromUTF8(
          UnsafeBufferPointer(start: base + start, count: end - start))
      else { throw JSONLazyError() }
      return string
    }
    // The slow path: escapes, and the control characters that are errors.
    do {
      return try JSONString.read(base, from: start, count: source.count).value
    } catch {
      throw JSONLazyError()
    }
  }

  /// A UUID in its canonical spelling (36 hex digits and dashes, either case) at `offset`.
  ///
  /// Anything else, including the same text with escapes, returns `nil` and is decoded by UUID's
  /// own `init(from:)`, so this shortcut accepts nothing that `UUID(uuidString:)` refuses.
  func uuid(at offset: Int) -> UUID? {
    guard offset >= 0, offset + 38 <= source.count else { return nil }
    let text = source.base + offset
    guard text[0] == JSONBytes.quote, text[37] == JSONBytes.quote, text[9] == UInt8(ascii: "-"),
      text[14] == UInt8(ascii: "-"), text[19] == UInt8(ascii: "-"), text[24] == UInt8(ascii: "-")
    else { return nil }
    // The 32 digits as two 64-bit halves; any byte that is not a hex digit fails.
    var halves: (UInt64, UInt64) = (0, 0)
    var digits = 0
    for index in 1..<37 where index != 9 && index != 14 && index != 19 && index != 24 {
      let byte = text[index]
      var value = byte &- UInt8(ascii: "0")
      if value > 9 {
        value = (byte | 0x20) &- UInt8(ascii: "a")
        guard value < 6 else { return nil }
        value += 10
      }
      if digits < 16 {
        halves.0 = halves.0 << 4 | UInt64(value)
      } else {
        halves.1 = halves.1 << 4 | UInt64(value)
      }
      digits += 1
    }
    let (high, low) = (halves.0.bigEndian, halves.1.bigEndian)
    return withUnsafeBytes(of: (high, low)) { bytes in
      UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
          bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
  }

  // MARK: - Bools

  func decodeBool(at offset: Int, path: () -> [any CodingKey]) throws -> Bool {
    // NB: Foundation reports `null` as a type mismatch for Bool, not as a missing value.
    switch byte(at: offset) {
    case UInt8(ascii: "t"): return true
    case UInt8(ascii: "f"): return false
    default: throw typeMismatch(Bool.self, at: offset, path())
    }
  }
}
