/// Byte-level helpers shared by the codec's scanner, decoder and writer.
///
/// NB: the loops test eight bytes at a time (SWAR): a byte-per-iteration loop spends most of a
/// long string's time on branches. `has(_:below:)`-style tests may also flag bytes *after* the
/// first match (a borrow travels upwards), never before it, so the lowest flagged byte is always
/// the first real match.
enum JSONBytes {
  static let quote = UInt8(ascii: "\"")
  static let backslash = UInt8(ascii: "\\")

  private static let ones: UInt64 = 0x0101_0101_0101_0101
  private static let highs: UInt64 = 0x8080_8080_8080_8080

  /// Flags (high bit of each byte) the bytes of `word` equal to `byte`, the first one exactly.
  @inline(__always)
  static func flags(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
    let x = word ^ (ones &* UInt64(byte))
    return (x &- ones) & ~x & highs
  }

  /// Flags the bytes of `word` below `limit` (at most 0x80), the first one exactly.
  @inline(__always)
  static func flags(_ word: UInt64, below limit: UInt8) -> UInt64 {
    (word &- ones &* UInt64(limit)) & ~word & highs
  }

  /// Reads eight bytes at `offset`, the first byte in the lowest bits on any platform.
  @inline(__always)
  static func word(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
  }

  /// The offset of the first `"` or `\` at or after `start`, or `end`.
  @inline(__always)
  static func firstQuoteOrBackslash(
    _ base: UnsafePointer<UInt8>, from start: Int, to end: Int
  ) -> Int {
    var index = start
    while index + 8 <= end {
      let word = word(base, index)
      let found = flags(word, equalTo: quote) | flags(word, equalTo: backslash)
      if found != 0 { return index + found.trailingZeroBitCount / 8 }
      index += 8
    }
    while index < end, base[index] != quote, base[index] != backslash { index += 1 }
    return index
  }

  /// The offset of the first `"`, `\`, control character (below 0x20) or `also` at or after
  /// `start`, or `end`: where a string's text stops being copied as it is, when reading (`also`
  /// a quote again: nothing more) and when writing (`also` a slash, when slashes are escaped).
  @inline(__always)
  static func firstQuoteBackslashControl(
    _ base: UnsafePointer<UInt8>, from start: Int, to end: Int, also: UInt8 = quote
  ) -> Int {
    var index = start
    while index + 8 <= end {
      let word = word(base, index)
      let found =
        flags(word, equalTo: quote) | flags(word, equalTo: backslash) | flags(word, equalTo: also)
        | flags(word, below: 0x20)
      if found != 0 { return index + found.trailingZeroBitCount / 8 }
      index += 8
    }
    // The tail, fewer than eight bytes, one at a time.
    while index < end {
      let byte = base[index]
      if byte == quote || byte == backslash || byte == also || byte < 0x20 { return index }
      index += 1
    }
    return end
  }

  /// Whether `count` bytes at `start` hold a `\` or a byte below 0x20 (so the text is not the
  /// string's value as it stands).
  @inline(__always)
  static func needsUnescaping(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    var index = start
    while index + 8 <= end {
      let word = word(base, index)
      if flags(word, equalTo: backslash) | flags(word, below: 0x20) != 0 { return true }
      index += 8
    }
    while index < end {
      if base[index] == backslash || base[index] < 0x20 { return true }
      index += 1
    }
    return false
  }

  /// Whether every byte in the range is ASCII.
  @inline(__always)
  static func isASCII(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    var index = start
    var bits: UInt64 = 0
    while index + 8 <= end {
      bits |= word(base, index)
      index += 8
    }
    while index < end {
      bits |= UInt64(base[index])
      index += 1
    }
    return bits & highs == 0
  }

  @inline(__always)
  static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  @inline(__always)
  static func isNumberByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"),
      UInt8(ascii: "-"), UInt8(ascii: "e"), UInt8(ascii: "E"):
      return true
    default:
      return false
    }
  }
}
