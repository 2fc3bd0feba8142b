import Foundation

/// The one JSON reader: a single pass over a document's bytes, checking it as strictly as asked.
///
/// Strictness is a setting, because Keepsake reads JSON for two purposes:
/// - ``Strictness/foundation``: the first pass of ``KeepsakeJSONDecoder``, which must accept
///   exactly what Foundation's `JSONDecoder` accepts. Foundation checks in two stages, and this
///   copies its first (measured on Swift 6.3.1, pinned by `KeepsakeJSONTests` and the `json-diff`
///   campaign): brackets, commas (a trailing comma is accepted, as in `[1,2,]`), colons, the
///   literals, whitespace (space, tab, CR, LF), nothing after the top-level value, the nesting
///   limit, and where each string and number ends. A string ends at the first unescaped quote;
///   `\u` must be followed by 4 bytes that are not a quote. A number is any run of
///   `0-9 . + - e E` after a digit or a minus. Everything else (number syntax and range, escapes,
///   control characters and UTF-8 in strings) is checked by the decoder only in the values a
///   type actually decodes: `{"a":1,"b":01}` decodes as a type with only `a`.
/// - ``Strictness/strict``: RFC 8259 in full, for the paths that need the document as a
///   ``JSONValue`` (migrations, legacy files, saying why a damaged file cannot be read, shapes).
///   Every string and number is checked as it is read, a trailing comma is an error, and the
///   error says where and why.
///
/// Both share the nesting limit (``JSONLimits/maximumDepth``), the reading of strings
/// (``JSONString``) and literals, and an explicit stack of open containers instead of recursion,
/// so no input can overflow the call stack.
///
/// NB: `JSONDecoder` cannot hand out an untyped tree, and decoding ``JSONValue`` through a decoder
/// would mean trying each JSON type in turn and paying for a thrown error on every miss; so the
/// strict setting builds the tree as it reads.
struct JSONReader {
  enum Strictness {
    case foundation
    case strict
  }

  private let base: UnsafePointer<UInt8>
  private let count: Int
  private var index = 0
  /// One entry per open container: `true` for an object.
  private var open: [Bool] = []
  // The strict setting's tree: the open arrays and objects, the key of each object's member being
  // read, and the value once the document is read.
  private var arrays: [[JSONValue]] = []
  private var objects: [[String: JSONValue]] = []
  private var keys: [String] = []
  private var root: JSONValue = .null

  private init(base: UnsafePointer<UInt8>, count: Int) {
    self.base = base
    self.count = count
    open.reserveCapacity(16)
  }

  /// Whether `bytes` (UTF-8, without a byte order mark) has a structure Foundation accepts.
  ///
  /// `prefix`, when not 0, says the first `prefix` bytes are those of a document that had one,
  /// up to the end of an element of its top-level array: only the rest is read.
  ///
  /// NB: reading is a state machine over the bytes. After an element of the top-level array its
  /// state is the same whatever came before (one open array, nothing else), so reading on from
  /// there answers as reading the whole would (``JSONArrayMemo``: a file read again after an
  /// append checks what was appended, not the whole file again).
  static func hasValidStructure(
    _ bytes: UnsafeBufferPointer<UInt8>, afterTopLevelElementEndingAt prefix: Int = 0
  ) -> Bool {
    guard let base = bytes.baseAddress, prefix >= 0, prefix <= bytes.count else { return false }
    var reader = JSONReader(base: base, count: bytes.count)
    if prefix > 0 {
      reader.index = prefix
      reader.open.append(false)
    }
    do {
      try reader.readDocument(.foundation, afterValue: prefix > 0)
      return true
    } catch {
      return false
    }
  }

  /// Reads a whole UTF-8 document strictly (RFC 8259; a byte order mark is skipped, as Foundation
  /// does).
  ///
  /// - Throws: ``JSONSyntaxError`` saying where and why the bytes are not a JSON document.
  static func value(of data: Data) throws(JSONSyntaxError) -> JSONValue {
    let result: Result<JSONValue, JSONSyntaxError> = data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let base = bytes.baseAddress else {
        return .failure(JSONSyntaxError(offset: 0, message: "the document is empty"))
      }
      var reader = JSONReader(base: base, count: bytes.count)
      if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.index = 3 }
      return Result { () throws(JSONSyntaxError) -> JSONValue in
        try reader.readDocument(.strict)
        return reader.root
      }
    }
    return try result.get()
  }

  // MARK: - Structure

  // NB: inlined into each entry point with a constant strictness, so the Foundation setting (the
  // decoder's hot path) compiles to its own loop without the strict setting's work.
  @inline(__always)
  private mutating func readDocument(
    _ strictness: Strictness, afterValue: Bool = false
  ) throws(JSONSyntaxError) {
    var readsValue = !afterValue
    if readsValue {
      skipWhitespace()
      if strictness == .strict, index == count { throw error("the document is empty") }
    }
    while true {
      if readsValue { try readValue(strictness) }
      readsValue = true
      // After a value: close containers, or find the next element or member.
      while true {
        guard let isObject = open.last else {
          skipWhitespace()
          guard index == count else { throw error("unexpected text after the JSON value") }
          return
        }
        skipWhitespace()
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if index < count, base[index] == UInt8(ascii: ",") {
          index += 1
          skipWhitespace()
          if strictness == .foundation, index < count, base[index] == closing {
            // A trailing comma, which Foundation accepts.
            index += 1
            close(strictness)
            continue
          }
          if isObject { try readKey(strictness) }
          break
        }
        guard index < count, base[index] == closing else {
          throw error(
            isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
        }
        index += 1
        close(strictness)
      }
    }
  }

  /// Reads one value starting at `index` (after whitespace).
  ///
  /// A container is only opened: its first member or element is read here too, or it is closed
  /// at once when empty.
  @inline(__always)
  private mutating func readValue(_ strictness: Strictness) throws(JSONSyntaxError) {
    while true {
      guard index < count else { throw error("unexpected end of data") }
      switch base[index] {
      case JSONBytes.quote:
        if strictness == .strict {
          return emit(.string(try readString()))
        }
        return try skipString()
      case UInt8(ascii: "{"):
        try enterContainer()
        index += 1
        skipWhitespace()
        if index < count, base[index] == UInt8(ascii: "}") {
          index += 1
          if strictness == .strict { emit(.object([:])) }
          return
        }
        open.append(true)
        if strictness == .strict { objects.append([:]) }
        try readKey(strictness)
      // The member's value follows: loop.
      case UInt8(ascii: "["):
        try enterContainer()
        index += 1
        skipWhitespace()
        if index < count, base[index] == UInt8(ascii: "]") {
          index += 1
          if strictness == .strict { emit(.array([])) }
          return
        }
        open.append(false)
        if strictness == .strict { arrays.append([]) }
      // The first element follows: loop.
      case UInt8(ascii: "t"):
        try readLiteral("true")
        if strictness == .strict { emit(.bool(true)) }
        return
      case UInt8(ascii: "f"):
        try readLiteral("false")
        if strictness == .strict { emit(.bool(false)) }
        return
      case UInt8(ascii: "n"):
        try readLiteral("null")
        if strictness == .strict { emit(.null) }
        return
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        if strictness == .strict { return emit(try readNumber()) }
        index += 1
        while index < count, JSONBytes.isNumberByte(base[index]) { index += 1 }
        return
      default:
        throw error("unexpected character")
      }
    }
  }

  /// Reads `"key" :` and the whitespace before the value.
  @inline(__always)
  private mutating func readKey(_ strictness: Strictness) throws(JSONSyntaxError) {
    guard index < count, base[index] == JSONBytes.quote else {
      throw error("expected a string key")
    }
    if strictness == .strict {
      keys.append(try readString())
    } else {
      try skipString()
    }
    skipWhitespace()
    guard index < count, base[index] == UInt8(ascii: ":") else {
      throw error("expected ':' after a key")
    }
    index += 1
    skipWhitespace()
  }

  private mutating func enterContainer() throws(JSONSyntaxError) {
    guard open.count < JSONLimits.maximumDepth else {
      throw error("nested deeper than \(JSONLimits.maximumDepth) levels")
    }
  }

  /// Closes the innermost open container.
  @inline(__always)
  private mutating func close(_ strictness: Strictness) {
    let isObject = open.removeLast()
    guard strictness == .strict else { return }
    emit(isObject ? .object(objects.removeLast()) : .array(arrays.removeLast()))
  }

  /// Puts a value that was read (strict setting) where it belongs in the tree.
  private mutating func emit(_ value: JSONValue) {
    guard let isObject = open.last else {
      root = value
      return
    }
    if isObject {
      // A repeated key keeps its last value.
      objects[objects.count - 1][keys.removeLast()] = value
    } else {
      arrays[arrays.count - 1].append(value)
    }
  }

  // MARK: - Strings

  /// Skips a string from its opening quote to after its closing quote, checking only where it
  /// ends (Foundation setting).
  private mutating func skipString() throws(JSONSyntaxError) {
    index += 1
    while true {
      index = JSONBytes.firstQuoteOrBackslash(base, from: index, to: count)
      guard index < count else { throw error("unterminated string") }
      if base[index] == JSONBytes.quote {
        index += 1
        return
      }
      // A backslash: the next byte is taken as escaped, whatever it is; `\u` takes 4 more,
      // none of which may be a quote (the escape itself is checked only when decoded).
      index += 1
      guard index < count else { throw error("unterminated escape") }
      let escaped = base[index]
      index += 1
      if escaped == UInt8(ascii: "u") {
        guard count - index >= 4 else { throw error("incomplete \\u escape") }
        for offset in 0..<4 where base[index + offset] == JSONBytes.quote {
          throw error("invalid \\u escape")
        }
        index += 4
      }
    }
  }

  /// Reads a string from its opening quote to after its closing quote (strict setting).
  private mutating func readString() throws(JSONSyntaxError) -> String {
    let (value, end) = try JSONString.read(base, from: index + 1, count: count)
    index = end + 1
    return value
  }

  // MARK: - Numbers and literals

  /// Reads a number in RFC 8259's syntax (strict setting): an integer that fits in `Int` keeps
  /// being one; anything else must be a finite `Double`.
  private mutating func readNumber() throws(JSONSyntaxError) -> JSONValue {
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
    if index < count, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
        index += 1
      }
      guard skipDigits() > 0 else { throw error("invalid number") }
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
    if isInteger, let int = Int(text) { return .int(int) }
    guard let double = Double(text), double.isFinite else {
      throw error("number out of range", at: start)
    }
    return .double(double)
  }

  /// Reads `literal` (`true`, `false` or `null`), which the byte at `index` begins.
  private mutating func readLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
    let length = literal.utf8CodeUnitCount
    guard count - index >= length else { throw error("unexpected end of data") }
    for offset in 0..<length where base[index + offset] != literal.utf8Start[offset] {
      throw error("unexpected character")
    }
    index += length
  }

  private mutating func consume(_ byte: UInt8) -> Bool {
    guard index < count, base[index] == byte else { return false }
    index += 1
    return true
  }

  private mutating func skipDigits() -> Int {
    let start = index
    while index < count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(base[index]) {
      index += 1
    }
    return index - start
  }

  private mutating func skipWhitespace() {
    while index < count, JSONBytes.isWhitespace(base[index]) { index += 1 }
  }

  private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset ?? index, message: message)
  }
}
