import Foundation
import Synchronization

/// Which JSON codec Keepsake's file keys and versioned formats use: Keepsake's own (the default)
/// or Foundation's `JSONEncoder` and `JSONDecoder`.
///
/// Both write the same bytes and read the same files to the same values, with the same errors
/// (see ``KeepsakeJSONEncoder`` and ``KeepsakeJSONDecoder``); Keepsake's is faster. Foundation's
/// stays selectable, to compare or to rule the codec out when investigating a problem: set the
/// environment variable `KEEPSAKE_JSON=foundation` before the process starts, or call
/// ``select(_:)`` (tests, benchmarks).
package enum JSONCoding: Sendable {
  case keepsake
  case foundation

  /// The codec in use.
  static var current: JSONCoding {
    selection.load(ordering: .relaxed) ? .foundation : .keepsake
  }

  /// Uses `coding` from now on, in the whole process.
  package static func select(_ coding: JSONCoding) {
    selection.store(coding == .foundation, ordering: .relaxed)
  }

  /// `true` for Foundation; read from `KEEPSAKE_JSON` once.
  private static let selection = Atomic<Bool>(
    ProcessInfo.processInfo.environment["KEEPSAKE_JSON"] == "foundation")

  /// Encodes `value` as Keepsake stores JSON: compact, with sorted keys.
  ///
  /// - Throws: The `EncodingError` of the value's encoding, for example for a non-finite Double.
  package static func encode<T: Encodable>(_ value: T) throws -> Data {
    switch current {
    case .keepsake:
      return try KeepsakeJSONEncoder().encode(value)
    case .foundation:
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      return try encoder.encode(value)
    }
  }

  /// Encodes `value` as ``encode(_:)`` does; when `T` is an array and Keepsake's codec is
  /// selected, the elements that are the same values `memo` kept from the last encoding are not
  /// encoded again: their bytes are reused (the same bytes).
  ///
  /// `envelope` writes the value inside a document: the bytes before and after it, how many
  /// containers deep it is, and the whole document's usual encoding, used when the memo cannot
  /// be.
  ///
  /// - Throws: What ``encode(_:)`` throws for the same value (or `envelope`'s `whole`).
  static func encode<T: Encodable>(
    _ value: T, memo: CodingMemo?,
    around envelope: (prefix: [UInt8], suffix: [UInt8], depth: Int, whole: () throws -> Data)? =
      nil
  ) throws -> Data {
    if let memo, current == .keepsake, let array = value as? any MemoizedArrayEncoding,
      let data = array.encode(
        memo: memo, prefix: envelope?.prefix ?? [], suffix: envelope?.suffix ?? [],
        depth: envelope?.depth ?? 0)
    {
      return data
    }
    return try envelope?.whole() ?? encode(value)
  }

  /// Decodes a `T` from `data`, refusing first the input that crashes Foundation's decoder.
  ///
  /// NB: measured with Swift 6.3.1 on Linux (found by the corruption fuzz of `keepsake-stress`):
  /// `JSONDecoder` traps (SIGILL, in `JSONError.SourceLocation`) on a document whose 513th level
  /// of nesting is an array opened by the very last byte, e.g. 513 `[` and nothing else. Any other
  /// ending, or any other depth, is a clean `DecodingError`. No valid JSON text ends with `[`, so
  /// such input is refused here, whichever codec is selected (the error is then the same for
  /// both).
  ///
  /// - Throws: `DecodingError.dataCorrupted` for such input; else `DecodingError`, or the error of
  ///   `T`'s own decoding code.
  package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    guard data.last != UInt8(ascii: "[") else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [],
          debugDescription: "The data is not valid JSON: it ends inside an unclosed array."))
    }
    switch current {
    case .keepsake: return try KeepsakeJSONDecoder().decode(type, from: data)
    case .foundation: return try JSONDecoder().decode(type, from: data)
    }
  }

  /// Decodes a `T` from `data` as ``decode(_:from:)`` does; when `T` is an array and Keepsake's
  /// codec is selected, the elements whose bytes are those `memo` kept from the last decoding are
  /// taken from it instead of being decoded again.
  ///
  /// - Throws: What ``decode(_:from:)`` throws for the same data.
  static func decode<T: Decodable>(_ type: T.Type, from data: Data, memo: CodingMemo?) throws
    -> T
  {
    // NB: not `[String]`, which the decoder reads whole faster than element by element.
    guard let memo, current == .keepsake, data.last != UInt8(ascii: "["), T.self != [String].self,
      let array = T.self as? any MemoizedArrayDecoding.Type
    else { return try decode(type, from: data) }
    guard let value = try array.decode(data, memo: memo) as? T else {
      return try decode(type, from: data)
    }
    return value
  }
}
