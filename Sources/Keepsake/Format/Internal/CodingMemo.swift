import Foundation
import KeepsakeJSON
import Synchronization

/// What a file key's last decoding or encoding of a top-level array leaves for the next one, so
/// that reading the file again decodes only the elements whose bytes changed
/// (``KeepsakeJSONDecoder/decodeArray(of:from:reusing:)``) and writing it encodes only the
/// elements that changed (``KeepsakeJSONEncoder/encodeArray(_:reusing:prefix:suffix:depth:)``).
///
/// Two per key made with `.fileStorage(url)` or `.fileStorage(url, format:)` (for the content of
/// a current-version file), one for reading and one for writing. They stay apart: an element's
/// bytes in a file are known only from decoding them, never assumed from a value that was
/// encoded (a type whose `encode(to:)` drops a field would otherwise keep the field after a
/// reload), and a value's bytes only from encoding it.
final class CodingMemo: Sendable {
  // NB: `Any` because the key's value is generic and only arrays leave a memo; taken out while
  // a coding uses it, so two at once (a background load beside a reload, a save beside the
  // merge of another device's copy) never share one: the second simply does everything.
  private let memo = Mutex<MemoBox?>(nil)

  /// Takes the memo out, if there is one.
  func take() -> Any? { memo.withLock { $0.take()?.value } }

  /// Keeps `value` as the memo for the next coding.
  func keep(_ value: Any?) {
    memo.withLock { $0 = value.map(MemoBox.init) }
  }
}

/// A memo, handed between threads under ``CodingMemo``'s lock.
///
/// NB: `@unchecked Sendable`: it holds an array of a value that is itself `Sendable` (file keys
/// require it) and the file's bytes; it is only ever moved in and out of the lock, never read
/// by two threads at once.
private struct MemoBox: @unchecked Sendable {
  let value: Any
}

/// A value that is a top-level JSON array in its file, decoded through a ``CodingMemo``.
protocol MemoizedArrayDecoding {
  /// Decodes the array in `data`, reusing and then replacing what `memo` keeps.
  static func decode(_ data: Data, memo: CodingMemo) throws -> Self
}

/// A value written as a JSON array, encoded through a ``CodingMemo``.
protocol MemoizedArrayEncoding {
  /// The bytes of the array between `prefix` and `suffix`, reusing and then replacing what
  /// `memo` keeps; `nil` when the usual encoding must write them (which then throws what it
  /// throws).
  func encode(memo: CodingMemo, prefix: [UInt8], suffix: [UInt8], depth: Int) -> Data?
}

extension Array: MemoizedArrayDecoding where Element: Decodable {
  static func decode(_ data: Data, memo: CodingMemo) throws -> [Element] {
    let previous = memo.take() as? JSONArrayMemo<Element>
    let (elements, next) = try KeepsakeJSONDecoder().decodeArray(
      of: Element.self, from: data, reusing: previous)
    memo.keep(next)
    return elements
  }
}

extension Array: MemoizedArrayEncoding where Element: Encodable {
  func encode(memo: CodingMemo, prefix: [UInt8], suffix: [UInt8], depth: Int) -> Data? {
    // NB: taken out, so that the encoding holds the memo's only reference and may write over
    // its memory (see `EncodedBlock`); a value that goes the usual way leaves no memo.
    let previous = memo.take() as? JSONArrayEncodingMemo<Element>
    guard
      let next = KeepsakeJSONEncoder().encodeArray(
        self, reusing: consume previous, prefix: prefix, suffix: suffix, depth: depth)
    else { return nil }
    let bytes = next.bytes
    memo.keep(next.byteCount <= JSONArrayEncodingMemo<Element>.maximumSize ? next : nil)
    return bytes
  }
}
