import Foundation

/// Guards `JSONDecoder` against input known to crash it.
///
/// NB: measured with Swift 6.3.1 on Linux (found by the corruption fuzz of `keepsake-stress`):
/// `JSONDecoder` traps (SIGILL, in `JSONError.SourceLocation`) on a document whose 513th level of
/// nesting is an array opened by the very last byte, e.g. 513 `[` and nothing else. Any other
/// ending, or any other depth, is a clean `DecodingError`. No valid JSON text ends with `[`, so
/// such input is refused here, before the decoder sees it.
enum JSONInput {
  /// Whether `data` can be handed to `JSONDecoder` without risking a crash.
  static func isSafeForDecoder(_ data: Data) -> Bool {
    data.last != UInt8(ascii: "[")
  }

  /// Decodes `type` from `data`, refusing input that would crash `JSONDecoder`.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for such input, or the decoder's error.
  static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    guard isSafeForDecoder(data) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [],
          debugDescription: "The data is not valid JSON: it ends inside an unclosed array."))
    }
    return try JSONCoding.decode(type, from: data)
  }
}
