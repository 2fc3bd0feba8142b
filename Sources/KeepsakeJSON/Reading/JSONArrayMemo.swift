import Foundation

/// What decoding a file's top-level JSON array leaves for the next decoding of the same file:
/// its bytes, its elements and where each one ends.
///
/// When the file changes by a few elements (another process appended one, a device synced an
/// edit), the elements whose bytes did not change are taken from here instead of being decoded
/// again, so reading the file costs what changed, plus a comparison of its bytes (see
/// ``KeepsakeJSONDecoder/decodeArray(of:from:reusing:)``).
package struct JSONArrayMemo<Element> {
  /// The decoded file.
  let bytes: Data
  /// Its elements, as decoded.
  let elements: [Element]
  /// For each element, the offset in `bytes` just past its last byte.
  let ends: [Int]

  /// Files larger than this leave no memo: a memo keeps the file's bytes alive beside its value.
  static var maximumSize: Int { 8 << 20 }
}

extension KeepsakeJSONDecoder {
  /// Decodes a top-level array of `Element`s as ``decode(_:from:)`` decodes `[Element]`, taking
  /// from `memo` the elements whose bytes are the same as when they were decoded before.
  ///
  /// The value and the errors are those of ``decode(_:from:)``: an element is taken from the memo
  /// only when every byte of the file up to its end (and, for a number or literal, the byte
  /// after it) is the same as in the memo's file, so it is the same element at the same index.
  /// The new file's structure is checked from the end of the last element taken (the bytes
  /// before it were checked when the memo was made). Anything unusual (a byte order mark,
  /// another encoding, a value that is not an array, any error) goes the usual way, which then
  /// gives the usual error.
  ///
  /// NB: an element is identified by its bytes, never by comparing values (`==` may compare only
  /// an `id`). What is taken from the memo is the element as it was decoded then; a type whose
  /// `init(from:)` gives different values for the same bytes (a new random identifier for a
  /// missing field) keeps the first one, which is what this process already showed.
  ///
  /// - Returns: The elements, and the memo for the next decoding (`nil` for a file that was not
  ///   read this way or is larger than ``JSONArrayMemo/maximumSize``).
  /// - Throws: `DecodingError`, as ``decode(_:from:)`` throws it.
  package func decodeArray<Element: Decodable>(
    of type: Element.Type, from data: Data, reusing memo: JSONArrayMemo<Element>?
  ) throws -> (elements: [Element], memo: JSONArrayMemo<Element>?) {
    let decoded = data.withUnsafeBytes { raw in
      Self.decodeArray(type, bytes: raw.bindMemory(to: UInt8.self), memo: memo)
    }
    guard let (elements, ends) = decoded else {
      return (try decode([Element].self, from: data), nil)
    }
    let next =
      data.count <= JSONArrayMemo<Element>.maximumSize
      ? JSONArrayMemo(bytes: data, elements: elements, ends: ends) : nil
    return (elements, next)
  }

  /// The elements and their ends, or `nil` when the usual way must decode the bytes.
  private static func decodeArray<Element: Decodable>(
    _ type: Element.Type, bytes: UnsafeBufferPointer<UInt8>, memo: JSONArrayMemo<Element>?
  ) -> (elements: [Element], ends: [Int])? {
    // NB: UTF-8 without a byte order mark only, so that offsets are the file's.
    guard encoding(of: bytes) == nil, skippingBOM(bytes) == 0 else { return nil }
    let reused = memo.map { reusableCount($0, bytes) } ?? 0
    // NB: the bytes up to the last element taken are the memo's, whose structure was checked
    // when it was made: only the rest is checked now.
    let prefix = reused > 0 ? memo?.ends[reused - 1] ?? 0 : 0
    return try? withDocument(bytes, validatedPrefix: prefix) { state in
      // NB: a value that is not an array throws here, and goes the usual way.
      var container = try state.unkeyedContainer(at: state.position, parent: nil, step: nil)
      var elements: [Element] = []
      var ends: [Int] = []
      if let memo, reused > 0 {
        elements.append(contentsOf: memo.elements[..<reused])
        ends.append(contentsOf: memo.ends[..<reused])
        container.skipElements(reused, lastEndingAt: prefix)
      }
      while !container.isAtEnd {
        var end = -1
        elements.append(try container.decodeElement(type, end: &end))
        ends.append(end)
      }
      return (elements, ends)
    }
  }

  /// How many of the memo's first elements `bytes` holds unchanged: those whose bytes, and every
  /// byte before them, are the memo file's, and which end there whatever follows.
  ///
  /// NB: a string, object or array ends with its own last byte, but a number or literal ends
  /// where the next byte is not part of it (`1` followed by `,` is the element `1`, followed by
  /// `2` it is not), so for those the byte after them must be the same too.
  private static func reusableCount<Element>(
    _ memo: JSONArrayMemo<Element>, _ bytes: UnsafeBufferPointer<UInt8>
  ) -> Int {
    guard memo.elements.count == memo.ends.count, let last = memo.ends.last else { return 0 }
    let same = memo.bytes.withUnsafeBytes { old in
      commonPrefix(old, UnsafeRawBufferPointer(bytes), limit: last + 1)
    }
    // The elements ending before the first differing byte, found by bisection.
    var low = 0
    var high = memo.ends.count
    while low < high {
      let middle = (low + high) / 2
      if memo.ends[middle] < same { low = middle + 1 } else { high = middle }
    }
    // The next one may end exactly there, if its last byte closes it.
    if low < memo.ends.count, memo.ends[low] == same, same > 0 {
      switch bytes[same - 1] {
      case JSONBytes.quote, UInt8(ascii: "}"), UInt8(ascii: "]"): return low + 1
      default: break
      }
    }
    return low
  }

  /// The length of the common prefix of `left` and `right`, up to `limit`.
  private static func commonPrefix(
    _ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer, limit: Int
  ) -> Int {
    let count = min(left.count, right.count, limit)
    guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return 0 }
    var index = 0
    // NB: whole blocks with `memcmp` first (vectorized), then the differing block by words: a
    // file read again after an append differs only at its end.
    let block = 512
    while index + block <= count, memcmp(leftBase + index, rightBase + index, block) == 0 {
      index += block
    }
    let word = MemoryLayout<UInt64>.size
    while index + word <= count,
      left.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        == right.loadUnaligned(fromByteOffset: index, as: UInt64.self)
    {
      index += word
    }
    while index < count, left[index] == right[index] { index += 1 }
    return index
  }
}
