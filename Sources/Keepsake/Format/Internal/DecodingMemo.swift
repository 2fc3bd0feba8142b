import Foundation
import Synchronization

/// The last top-level array a file key decoded, kept so that reading the file again decodes only
/// the elements whose bytes changed (``KeepsakeJSONDecoder/decodeArray(of:from:reusing:)``).
///
/// One per key made with `.fileStorage(url)` or `.fileStorage(url, format:)` (for the content of
/// a current-version file): the reference's loads, reloads after outside changes and
/// transactions' refreshes all read through it. Writes leave it alone: an element's
/// bytes are known only from decoding them, never assumed from a value that was encoded (a type
/// whose `encode(to:)` drops a field would otherwise keep the field after a reload).
final class DecodingMemo: Sendable {
  // NB: `Any` because the key's value is generic and only arrays leave a memo; taken out while
  // a decoding uses it, so two decodings at once (a background load beside a reload) never
  // share one: the second simply decodes everything.
  private let memo = Mutex<MemoBox?>(nil)

  /// Takes the memo out, if there is one.
  func take() -> Any? { memo.withLock { $0.take()?.value } }

  /// Keeps `value` as the memo for the next decoding.
  func keep(_ value: Any?) {
    memo.withLock { $0 = value.map(MemoBox.init) }
  }
}

/// A memo, handed between threads under ``DecodingMemo``'s lock.
///
/// NB: `@unchecked Sendable`: it holds a decoded array of a value that is itself `Sendable`
/// (file keys require it) and the file's bytes; it is only ever moved in and out of the lock,
/// never read by two threads at once.
private struct MemoBox: @unchecked Sendable {
  let value: Any
}

/// A value that is a top-level JSON array in its file, decoded through a ``DecodingMemo``.
protocol MemoizedArrayDecoding {
  /// Decodes the array in `data`, reusing and then replacing what `memo` keeps.
  static func decode(_ data: Data, memo: DecodingMemo) throws -> Self
}

extension Array: MemoizedArrayDecoding where Element: Decodable {
  static func decode(_ data: Data, memo: DecodingMemo) throws -> [Element] {
    let previous = memo.take() as? JSONArrayMemo<Element>
    let (elements, next) = try KeepsakeJSONDecoder().decodeArray(
      of: Element.self, from: data, reusing: previous)
    memo.keep(next)
    return elements
  }
}
