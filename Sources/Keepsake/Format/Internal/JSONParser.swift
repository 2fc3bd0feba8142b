import Foundation

/// Why some bytes are not a JSON document, with the byte offset where reading stopped.
struct JSONSyntaxError: Error, Equatable, Sendable {
  var offset: Int
  var message: String
}

/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONValue``.
///
/// NB: Keepsake parses JSON itself on the paths that need the raw document (migrations, legacy
/// files, classifying a damaged file, shapes). `JSONDecoder` cannot hand out an untyped tree, and
/// decoding `JSONValue` through it would mean trying each JSON type in turn and paying for a thrown
/// error on every miss. The common path (a current-version file) never comes here.
struct JSONParser {
  /// Deeper documents are refused rather than risking the stack on a hostile or corrupted file.
  static let maximumDepth = 512

  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0
  private var depth = 0

  private init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// Parses a whole document; trailing non-whitespace is an error.
  static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
    let result: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
      var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
      return Result { () throws(JSONSyntaxError) -> JSONValue in try parser.parseDocument() }
    }
    return try result.get()
  }

  private mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
    // A UTF-8 byte order mark is tolerated, as JSONDecoder does.
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    skipWhitespace()
    guard index < bytes.count else { throw error("the document is empty") }
    let value = try parseValue()
    skipWhitespace()
    guard index == bytes.count else { throw error("unexpected text after the JSON value") }
    return value
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of data") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
    case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
    case UInt8(ascii: "n"): return try parseLiteral("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected character")
    }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enterContainer()
    index += 1  // {
    var object: [String: JSONValue] = [:]
    skipWhitespace()
    if consume(UInt8(ascii: "}")) {
      depth -= 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a string key")
      }
      let key = try parseString()
      skipWhitespace()
      guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
      skipWhitespace()
      object[key] = try parseValue()
      skipWhitespace()
      if consume(UInt8(ascii: ",")) { continue }
      guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object") }
      depth -= 1
      return .object(object)
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enterContainer()
    index += 1  // [
    var array: [JSONValue] = []
    skipWhitespace()
    if consume(UInt8(ascii: "]")) {
      depth -= 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      array.append(try parseValue())
      skipWhitespace()
      if consume(UInt8(ascii: ",")) { continue }
      guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array") }
      depth -= 1
      return .array(array)
    }
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    index += 1  // opening quote
    let start = index
    // Fast path: no escapes, so the bytes between the quotes are the string.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let string = try makeString(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        index += 1
        return string
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw error("unescaped control character in a string") }
      index += 1
    }
    var buffer = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return try buffer.withUnsafeBufferPointer { (raw) throws(JSONSyntaxError) in
          try makeString(raw)
        }
      case UInt8(ascii: "\\"):
        try parseEscape(into: &buffer)
      case ..<0x20:
        throw error("unescaped control character in a string")
      default:
        buffer.append(byte)
        index += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
    index += 1  // backslash
    guard index < bytes.count else { throw error("unterminated escape") }
    let escaped = bytes[index]
    index += 1
    switch escaped {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
    case UInt8(ascii: "b"): buffer.append(0x08)
    case UInt8(ascii: "f"): buffer.append(0x0C)
    case UInt8(ascii: "n"): buffer.append(0x0A)
    case UInt8(ascii: "r"): buffer.append(0x0D)
    case UInt8(ascii: "t"): buffer.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = UInt32(try parseHex4())
      if (0xD800...0xDBFF).contains(scalar) {
        // A high surrogate must be followed by an escaped low surrogate.
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else { throw error("unpaired surrogate in a \\u escape") }
        index += 2
        let low = UInt32(try parseHex4())
        guard (0xDC00...0xDFFF).contains(low) else {
          throw error("unpaired surrogate in a \\u escape")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let unicode = Unicode.Scalar(scalar) else {
        throw error("unpaired surrogate in a \\u escape")
      }
      UTF8.encode(unicode) { buffer.append($0) }
    default:
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt16 {
    guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid \\u escape")
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    var isInteger = true
    _ = consume(UInt8(ascii: "-"))
    if consume(UInt8(ascii: "0")) {
      // A leading zero stands alone.
    } else {
      guard skipDigits() > 0 else { throw error("invalid number") }
    }
    if consume(UInt8(ascii: ".")) {
      isInteger = false
      guard skipDigits() > 0 else { throw error("invalid number") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard skipDigits() > 0 else { throw error("invalid number") }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    if isInteger, let int = Int(text) { return .int(int) }
    guard let double = Double(text), double.isFinite else {
      throw error("number out of range", at: start)
    }
    return .double(double)
  }

  private mutating func parseLiteral(
    _ literal: StaticString,
    _ value: JSONValue
  ) throws(JSONSyntaxError) -> JSONValue {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw error("unexpected end of data") }
    for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
      throw error("unexpected character")
    }
    index += count
    return value
  }

  private mutating func enterContainer() throws(JSONSyntaxError) {
    depth += 1
    guard depth <= Self.maximumDepth else {
      throw error("nested deeper than \(Self.maximumDepth) levels")
    }
  }

  private mutating func consume(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  private mutating func skipDigits() -> Int {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    return index - start
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private func makeString(_ utf8: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> String {
    // NB: `String(decoding:)` would silently replace invalid UTF-8 with U+FFFD, changing the
    // user's text during a migration. Invalid bytes are an error, as in JSONDecoder.
    guard let string = String(validating: utf8, as: UTF8.self) else {
      throw error("invalid UTF-8 in a string")
    }
    return string
  }

  private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset ?? index, message: message)
  }
}
