/// The first pass of decoding: checks a document's structure exactly as Foundation's
/// `JSONDecoder` does before it decodes anything.
///
/// NB: "Same acceptance" means copying Foundation's two-stage rules, measured on Swift 6.3.1 and
/// pinned by `KeepsakeJSONTests` and the `json-diff` campaign:
/// - This pass checks only the structure: brackets, commas (a trailing comma is accepted, as in
///   `[1,2,]`), colons, the literals `true`, `false` and `null`, whitespace (space, tab, CR, LF),
///   nothing after the top-level value, at most 512 levels of nesting, and where each string and
///   number ends. A string ends at the first unescaped quote; `\u` must be followed by 4 bytes
///   that are not a quote. A number is any run of `0-9 . + - e E` after a digit or a minus.
/// - Everything else is checked only for the values a type actually decodes: number syntax and
///   range, escapes, control characters and UTF-8 in strings. `{"a":1,"b":01}` decodes as a
///   type with only `a`; the same file is refused by a type that reads `b`. Keys are checked
///   when their object is opened as a keyed container.
enum JSONStructureScanner {
  /// The deepest nesting Foundation reads; the next level is an error, never a deeper stack.
  static let maximumDepth = 512

  /// Whether `bytes` (UTF-8, without a byte order mark) has a structure Foundation accepts.
  static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    var scanner = Scanner(base: base, count: bytes.count)
    return scanner.scanDocument()
  }

  private struct Scanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0
    /// One entry per open container: `true` for an object.
    var open: [Bool] = []

    init(base: UnsafePointer<UInt8>, count: Int) {
      self.base = base
      self.count = count
      open.reserveCapacity(16)
    }

    mutating func scanDocument() -> Bool {
      skipWhitespace()
      // NB: iterative, with an explicit stack of open containers, so no input can overflow the
      // call stack (the depth is bounded too, at 512).
      while true {
        guard scanValue() else { return false }
        // After a value: close containers, or find the next element or member.
        while true {
          guard let isObject = open.last else {
            skipWhitespace()
            return index == count
          }
          skipWhitespace()
          guard index < count else { return false }
          let byte = base[index]
          if byte == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            guard index < count else { return false }
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            if base[index] == closing {
              // A trailing comma, which Foundation accepts.
              index += 1
              open.removeLast()
              continue
            }
            if isObject { guard scanKey() else { return false } }
            break
          }
          guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
          index += 1
          open.removeLast()
        }
      }
    }

    /// Scans one value starting at `index` (after whitespace).
    ///
    /// A container is only opened: its first member or element is scanned here too, or it is
    /// closed at once when empty.
    mutating func scanValue() -> Bool {
      while true {
        guard index < count else { return false }
        switch base[index] {
        case JSONBytes.quote:
          return skipString()
        case UInt8(ascii: "{"):
          guard open.count < JSONStructureScanner.maximumDepth else { return false }
          index += 1
          skipWhitespace()
          guard index < count else { return false }
          if base[index] == UInt8(ascii: "}") {
            index += 1
            return true
          }
          open.append(true)
          guard scanKey() else { return false }
        // The member's value follows: loop.
        case UInt8(ascii: "["):
          guard open.count < JSONStructureScanner.maximumDepth else { return false }
          index += 1
          skipWhitespace()
          guard index < count else { return false }
          if base[index] == UInt8(ascii: "]") {
            index += 1
            return true
          }
          open.append(false)
        // The first element follows: loop.
        case UInt8(ascii: "t"): return skipLiteral("true")
        case UInt8(ascii: "f"): return skipLiteral("false")
        case UInt8(ascii: "n"): return skipLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          index += 1
          while index < count, JSONBytes.isNumberByte(base[index]) { index += 1 }
          return true
        default:
          return false
        }
      }
    }

    /// Scans `"key" :` and the whitespace before the value.
    mutating func scanKey() -> Bool {
      guard index < count, base[index] == JSONBytes.quote, skipString() else { return false }
      skipWhitespace()
      guard index < count, base[index] == UInt8(ascii: ":") else { return false }
      index += 1
      skipWhitespace()
      return true
    }

    /// Skips a string from its opening quote to after its closing quote.
    mutating func skipString() -> Bool {
      index += 1
      while true {
        index = JSONBytes.firstQuoteOrBackslash(base, from: index, to: count)
        guard index < count else { return false }
        if base[index] == JSONBytes.quote {
          index += 1
          return true
        }
        // A backslash: the next byte is taken as escaped, whatever it is; `\u` takes 4 more,
        // none of which may be a quote (the escape itself is checked only when decoded).
        index += 1
        guard index < count else { return false }
        let escaped = base[index]
        index += 1
        if escaped == UInt8(ascii: "u") {
          guard count - index >= 4 else { return false }
          for offset in 0..<4 where base[index + offset] == JSONBytes.quote { return false }
          index += 4
        }
      }
    }

    mutating func skipLiteral(_ literal: StaticString) -> Bool {
      let length = literal.utf8CodeUnitCount
      guard count - index >= length else { return false }
      for offset in 0..<length where base[index + offset] != literal.utf8Start[offset] {
        return false
      }
      index += length
      return true
    }

    mutating func skipWhitespace() {
      while index < count, JSONBytes.isWhitespace(base[index]) { index += 1 }
    }
  }
}
