import Foundation

/// Numbers, with Foundation's rules: RFC 8259 syntax, a range check, and integers that may be
/// written with a fraction or an exponent (`1.0`, `1e2`).
extension JSONDecodingState {
  func decodeInteger<T: FixedWidthInteger & Decodable>(
    at offset: Int, path: () -> [any CodingKey]
  ) throws -> T {
    guard isNumber(at: offset) else {
      if byte(at: offset) == UInt8(ascii: "n") { throw valueNotFound(T.self, path()) }
      throw typeMismatch(T.self, at: offset, path())
    }
    // The common case: an optional minus and at most 18 digits, no leading zero.
    let base = source.base
    let end = numberEnd(from: offset)
    let negative = base[offset] == UInt8(ascii: "-")
    let digits = negative ? offset + 1 : offset
    let count = end - digits
    if count > 0, count <= 18, base[digits] != UInt8(ascii: "0") || count == 1 {
      var magnitude: UInt64 = 0
      var index = digits
      while index < end {
        let digit = base[index] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        magnitude = magnitude * 10 + UInt64(digit)
        index += 1
      }
      if index == end {
        if !negative, let value = T(exactly: magnitude) { return value }
        if negative, magnitude == 0 { return 0 }
        if negative, T.isSigned, let value = T(exactly: -Int64(magnitude)) { return value }
      }
    }
    // NB: everything else (a fraction, an exponent, a sign where it cannot be, a value out of
    // range) is decoded by Foundation itself, as a document of that one number, so the result is
    // Foundation's by construction. Its rules pass through Double and Decimal in ways no public
    // API exposes: `1.0000000000000001` is the Int 1, `123456789012345678.5` is
    // 123456789012345678, `9223372036854775807.0` is an error.
    return try foundationNumber(T.self, at: offset)
  }

  func decodeFloat<T: BinaryFloatingPoint & LosslessStringConvertible>(
    at offset: Int, path: () -> [any CodingKey]
  ) throws -> T {
    guard isNumber(at: offset) else {
      if byte(at: offset) == UInt8(ascii: "n") { throw valueNotFound(T.self, path()) }
      throw typeMismatch(T.self, at: offset, path())
    }
    let base = source.base
    let end = numberEnd(from: offset)
    guard let shape = Self.numberShape(base, from: offset, to: end),
      !Self.isRefusedByFoundationAsFloat(base, from: offset, to: end)
    else { throw JSONLazyError() }
    // NB: an exact fast path (Clinger's): at most 15 significant digits and a power of ten at
    // most 22 are both exact Doubles, so one division is correctly rounded, like strtod. Float
    // takes strtof's path, as a Double rounded again to Float could differ.
    if T.self == Double.self, !shape.hasExponent, shape.digitCount <= 15,
      shape.fractionDigits <= 22
    {
      var mantissa: UInt64 = 0
      for index in offset..<end {
        let digit = base[index] &- UInt8(ascii: "0")
        if digit < 10 { mantissa = mantissa * 10 + UInt64(digit) }
      }
      var value = Double(mantissa) / Self.powersOfTen[shape.fractionDigits]
      if base[offset] == UInt8(ascii: "-") { value = -value }
      return T(value)
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: base + offset, count: end - offset), as: UTF8.self)
    guard let value = T(text), value.isFinite else { throw JSONLazyError() }
    // A number too small for the type rounds to zero; Foundation refuses it unless it is zero.
    if value == 0, !Self.isZero(base, from: offset, to: end) { throw JSONLazyError() }
    return value
  }

  /// Decodes the number at `offset` with Foundation's `JSONDecoder`, for the rare numbers whose
  /// rules only Foundation knows exactly.
  func foundationNumber<T: Decodable>(_ type: T.Type, at offset: Int) throws(JSONLazyError) -> T {
    let text = Data(
      UnsafeBufferPointer(start: source.base + offset, count: numberEnd(from: offset) - offset))
    // NB: only a number reaches here, so Foundation can fail only with "not valid JSON".
    guard let value = try? JSONDecoder().decode(T.self, from: text) else { throw JSONLazyError() }
    return value
  }

  /// The digits of a number in RFC 8259 syntax, or `nil` when it is not one (`01`, `1.`, `1.e5`,
  /// `1-2`, `-`): Foundation's checks before and after strtod together come to exactly that.
  static func numberShape(
    _ base: UnsafePointer<UInt8>, from start: Int, to end: Int
  ) -> (digitCount: Int, fractionDigits: Int, hasExponent: Bool)? {
    var index = start
    if base[index] == UInt8(ascii: "-") { index += 1 }
    func digits() -> Int {
      let first = index
      while index < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(base[index]) {
        index += 1
      }
      return index - first
    }
    let integerStart = index
    let integerDigits = digits()
    guard integerDigits > 0, base[integerStart] != UInt8(ascii: "0") || integerDigits == 1 else {
      return nil
    }
    var fractionDigits = 0
    if index < end, base[index] == UInt8(ascii: ".") {
      index += 1
      fractionDigits = digits()
      guard fractionDigits > 0 else { return nil }
    }
    var hasExponent = false
    if index < end, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
      hasExponent = true
      index += 1
      if index < end, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
        index += 1
      }
      guard digits() > 0 else { return nil }
    }
    guard index == end else { return nil }
    // Leading zeros are not significant for the fast path's digit limit.
    var significant = integerDigits + fractionDigits
    var scan = integerStart
    while significant > 1, scan < end,
      base[scan] == UInt8(ascii: "0") || base[scan] == UInt8(ascii: ".")
    {
      if base[scan] == UInt8(ascii: "0") { significant -= 1 }
      scan += 1
    }
    return (significant, fractionDigits, hasExponent)
  }

  /// Whether the number is exactly `0e1` to `0e9` (or `0E1` to `0E9`), which Foundation's
  /// decoder refuses as a `Double` or `Float` while it takes `0e0`, `0e10`, `0e+1`, `-0e1` and
  /// the same text as an integer: the document then goes to Foundation, for its exact error.
  private static func isRefusedByFoundationAsFloat(
    _ base: UnsafePointer<UInt8>, from start: Int, to end: Int
  ) -> Bool {
    end - start == 3 && base[start] == UInt8(ascii: "0")
      && (base[start + 1] == UInt8(ascii: "e") || base[start + 1] == UInt8(ascii: "E"))
      && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(base[start + 2])
  }

  /// Whether a number's digits before its exponent are all zeros.
  private static func isZero(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    for index in start..<end {
      switch base[index] {
      case UInt8(ascii: "1")...UInt8(ascii: "9"): return false
      case UInt8(ascii: "e"), UInt8(ascii: "E"): return true
      default: continue
      }
    }
    return true
  }

  private static let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
  }
}
