import Foundation

/// Keepsake's JSON decoder: Foundation's `JSONDecoder` with its default strategies, at least
/// twice as fast.
///
/// It accepts exactly the documents Foundation accepts and decodes them to the same values, and
/// its errors are Foundation's `DecodingError`s, with the same case and coding path (Keepsake's
/// error messages render those paths). Foundation's defaults are the only behaviour: dates are
/// seconds since 2001 as a number, data is Base64, non-conforming floats are refused, keys are
/// used as they are. Input in UTF-16 or UTF-32 (with or without a byte order mark, detected as
/// Foundation does) is converted to UTF-8 first; a UTF-8 byte order mark is skipped.
///
/// How it is fast: it works on the bytes, in two passes. The first checks the structure as
/// Foundation's scanner does (``JSONReader`` with its Foundation strictness); the second decodes values straight
/// from the bytes, with keyed containers that find members by comparing bytes
/// (``JSONObjectTable``) instead of building a dictionary per object, a path that is only built
/// when an error needs it, and fast paths for strings without escapes, integers, Bool and UUID.
///
/// > Important: Behaviour that differs from Foundation is a bug: the `json-diff` campaign of
/// > `keepsake-stress` compares both on random values and damaged files.
package struct KeepsakeJSONDecoder: Sendable {
  package init() {}

  /// Decodes a `T` from `data`.
  ///
  /// - Throws: `DecodingError`, as Foundation's `JSONDecoder` would throw it; errors thrown by
  ///   `T`'s own decoding code pass through.
  package func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    do {
      return try data.withUnsafeBytes { raw throws -> T in
        try Self.decode(type, utf8OrOther: raw.bindMemory(to: UInt8.self))
      }
    } catch is JSONLazyError {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "The given data was not valid JSON."))
    }
  }

  private static func decode<T: Decodable>(
    _ type: T.Type, utf8OrOther bytes: UnsafeBufferPointer<UInt8>
  ) throws -> T {
    guard let (encoding, bomLength) = encoding(of: bytes) else {
      return try decode(type, utf8: UnsafeBufferPointer(rebasing: bytes[skippingBOM(bytes)...]))
    }
    // NB: Foundation reads JSON in UTF-16 and UTF-32 too (RFC 4627 detection); such a file is
    // converted with Foundation's own conversion, then read as UTF-8.
    guard
      var string = String(
        bytes: UnsafeBufferPointer(rebasing: bytes[bomLength...]), encoding: encoding)
    else { throw JSONLazyError() }
    return try string.withUTF8 { utf8 in try decode(type, utf8: utf8) }
  }

  private static func decode<T: Decodable>(
    _ type: T.Type, utf8 bytes: UnsafeBufferPointer<UInt8>
  ) throws -> T {
    try withDocument(bytes) { state in
      try state.decodeValue(type, at: state.position, parent: nil, step: nil)
    }
  }

  /// Runs `body` with a decoder of `bytes` (UTF-8, without a byte order mark) at the start of
  /// its value, once their structure is checked.
  ///
  /// `validatedPrefix`, when not 0, is where an element of the top-level array ends in bytes that
  /// are, up to there, those of a document whose structure was checked: the check starts there.
  ///
  /// - Throws: ``JSONLazyError`` for a structure Foundation refuses; what `body` throws.
  static func withDocument<R>(
    _ bytes: UnsafeBufferPointer<UInt8>, validatedPrefix: Int = 0,
    _ body: (JSONDecodingState) throws -> R
  ) throws -> R {
    guard let base = bytes.baseAddress,
      JSONReader.hasValidStructure(bytes, afterTopLevelElementEndingAt: validatedPrefix)
    else { throw JSONLazyError() }
    var state = JSONDecodingState(
      source: JSONSource(base: base, count: bytes.count), position: 0, parent: nil, step: nil)
    state.position = state.skipWhitespace(from: 0)
    defer {
      state.releasePools()
      // A decoder or container that a type kept beyond `init(from:)` would point into bytes
      // about to go away: copy them (Foundation does the same).
      if !isKnownUniquelyReferenced(&state) || !isKnownUniquelyReferenced(&state.source) {
        state.source.takeOwnership()
      }
    }
    return try body(state)
  }

  /// The length of a UTF-8 byte order mark at the start of `bytes`, if any.
  static func skippingBOM(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
  }

  /// The encoding Foundation detects, with its byte order mark's length, unless it is UTF-8.
  static func encoding(
    of bytes: UnsafeBufferPointer<UInt8>
  ) -> (String.Encoding, Int)? {
    func at(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
    switch (at(0), at(1), at(2), at(3)) {
    case (0, 0, 0xFE, 0xFF): return (.utf32BigEndian, 4)
    case (0xFE, 0xFF, 0, 0): return (.utf32LittleEndian, 4)
    case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
    case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
    case (0xEF, 0xBB, 0xBF, _): return nil
    case (0, 0, 0, .some(let last)) where last != 0: return (.utf32BigEndian, 0)
    case (0, .some(let first), 0, .some(let second)) where first != 0 && second != 0:
      return (.utf16BigEndian, 0)
    case (.some(let first), 0, 0, 0) where first != 0: return (.utf32LittleEndian, 0)
    case (.some(let first), 0, .some(let second), 0) where first != 0 && second != 0:
      return (.utf16LittleEndian, 0)
    case (0, .some(let second), nil, nil) where second != 0: return (.utf16BigEndian, 0)
    case (.some(let first), 0, nil, nil) where first != 0: return (.utf16LittleEndian, 0)
    default: return nil
    }
  }
}
