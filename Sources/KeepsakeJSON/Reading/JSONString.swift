/// Reading a string's text: the one unescape of Keepsake's JSON reading, for the decoder and the
/// strict reader alike.
///
/// The rules are RFC 8259's, which are also what Foundation's `JSONDecoder` checks in a string it
/// decodes: the escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (a lead surrogate must be followed by an
/// escaped trail surrogate), no unescaped control character (U+0000 to U+001F), and valid UTF-8.
enum JSONString {
  /// Reads the string whose text starts at `start` (just after its opening quote), up to its
  /// closing quote.
  ///
  /// - Parameter count: The length of the whole document; a string is never read past it.
  /// - Returns: The string's value and the offset of its closing quote.
  /// - Throws: ``JSONSyntaxError`` with the offset where the text stops being a string.
  static func read(
    _ base: UnsafePointer<UInt8>, from start: Int, count: Int
  ) throws(JSONSyntaxError) -> (value: String, end: Int) {
    // Fast path: no escape, so the bytes between the quotes are the string.
    let stop = JSONBytes.firstQuoteBackslashControl(base, from: start, to: count)
    guard stop < count else { throw JSONSyntaxError(offset: count, message: "unterminated string") }
    switch base[stop] {
    case JSONBytes.quote:
      // NB: invalid UTF-8 is an error, as in Foundation; `String(decoding:)` would replace it
      // with U+FFFD and change the user's text. `_tryFromUTF8` is the standard library's entry
      // point that Foundation uses too; `String(validating:as:)` looks up type metadata per call.
      guard
        let string = String._tryFromUTF8(
          UnsafeBufferPointer(start: base + start, count: stop - start))
      else { throw JSONSyntaxError(offset: stop, message: "invalid UTF-8 in a string") }
      return (string, stop)
    case JSONBytes.backslash:
      return try unescape(base, from: start, escapeAt: stop, count: count)
    default:
      throw controlCharacter(at: stop)
    }
  }

  /// The slow path of ``read(_:from:count:)``, from the first escape on.
  private static func unescape(
    _ base: UnsafePointer<UInt8>, from start: Int, escapeAt escape: Int, count: Int
  ) throws(JSONSyntaxError) -> (value: String, end: Int) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(escape - start + 16)
    bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: escape - start))
    var index = escape
    while index < count {
      let byte = base[index]
      switch byte {
      case JSONBytes.quote:
        // NB: escapes add whole characters, so checking the UTF-8 of the result is the same as
        // checking each run of bytes between escapes.
        guard let string = bytes.withUnsafeBufferPointer({ String._tryFromUTF8($0) }) else {
          throw JSONSyntaxError(offset: index + 1, message: "invalid UTF-8 in a string")
        }
        return (string, index)
      case JSONBytes.backslash:
        index = try readEscape(base, at: index, count: count, into: &bytes)
      case ..<0x20:
        throw controlCharacter(at: index)
      default:
        bytes.append(byte)
        index += 1
      }
    }
    throw JSONSyntaxError(offset: count, message: "unterminated string")
  }

  /// Appends the UTF-8 of the escape whose backslash is at `offset`; returns the offset after it.
  private static func readEscape(
    _ base: UnsafePointer<UInt8>, at offset: Int, count: Int, into bytes: inout [UInt8]
  ) throws(JSONSyntaxError) -> Int {
    var index = offset + 1
    guard index < count else {
      throw JSONSyntaxError(offset: index, message: "unterminated escape")
    }
    let escaped = base[index]
    index += 1
    switch escaped {
    case JSONBytes.quote, JSONBytes.backslash, UInt8(ascii: "/"): bytes.append(escaped)
    case UInt8(ascii: "b"): bytes.append(0x08)
    case UInt8(ascii: "f"): bytes.append(0x0C)
    case UInt8(ascii: "n"): bytes.append(0x0A)
    case UInt8(ascii: "r"): bytes.append(0x0D)
    case UInt8(ascii: "t"): bytes.append(0x09)
    case UInt8(ascii: "u"):
      let first = try hex4(base, at: index, count: count)
      index += 4
      var scalarValue = UInt32(first)
      if UTF16.isLeadSurrogate(first) {
        // A lead surrogate must be followed by an escaped trail surrogate.
        guard index + 1 < count, base[index] == JSONBytes.backslash,
          base[index + 1] == UInt8(ascii: "u")
        else { throw unpairedSurrogate(at: index) }
        index += 2
        let second = try hex4(base, at: index, count: count)
        index += 4
        guard UTF16.isTrailSurrogate(second) else { throw unpairedSurrogate(at: index) }
        scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
      }
      // A trail surrogate on its own is not a scalar.
      guard let scalar = Unicode.Scalar(scalarValue) else { throw unpairedSurrogate(at: index) }
      UTF8.encode(scalar) { bytes.append($0) }
    default:
      throw JSONSyntaxError(offset: index, message: "invalid escape")
    }
    return index
  }

  /// The four hex digits of a `\u` escape at `offset`.
  private static func hex4(
    _ base: UnsafePointer<UInt8>, at offset: Int, count: Int
  ) throws(JSONSyntaxError) -> UInt16 {
    guard offset + 4 <= count else {
      throw JSONSyntaxError(offset: offset, message: "incomplete \\u escape")
    }
    var value: UInt16 = 0
    for index in offset..<(offset + 4) {
      let byte = base[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw JSONSyntaxError(offset: index, message: "invalid \\u escape")
      }
      value = value << 4 | UInt16(digit)
    }
    return value
  }

  private static func controlCharacter(at offset: Int) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset, message: "unescaped control character in a string")
  }

  private static func unpairedSurrogate(at offset: Int) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset, message: "unpaired surrogate in a \\u escape")
  }
}
