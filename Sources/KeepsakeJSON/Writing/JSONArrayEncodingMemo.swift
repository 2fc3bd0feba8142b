import Foundation

/// What encoding an array leaves for the next encoding of the same array: the elements, the
/// bytes written and where each element ends in them.
///
/// When a few elements changed since (one draft edited among 100,000), the others are not
/// encoded again: their bytes are reused, so a save costs what changed plus moving the bytes
/// that follow it (see ``KeepsakeJSONEncoder/encodeArray(_:reusing:prefix:suffix:depth:)``).
package struct JSONArrayEncodingMemo<Element> {
  /// The elements encoded, kept alive so that an element with the same bytes as one of them is
  /// that same value (see ``ElementLayout``).
  let elements: [Element]
  /// The bytes written: the prefix, the array, the suffix.
  var block: EncodedBlock
  /// Where the array's `[` is in the block.
  let start: Int
  /// For each element, the offset in the block just past its last byte.
  let ends: [Int]

  /// Encodings larger than this leave no memo: a memo keeps the bytes alive beside the value.
  package static var maximumSize: Int { 64 << 20 }

  /// The bytes written, as `Data` that shares the memo's memory: while it lives, the next
  /// encoding writes elsewhere.
  package var bytes: Data { block.data() }

  /// How many bytes were written.
  package var byteCount: Int { block.count }

  /// Which memory holds the bytes: the same for an encoding written over its memo's in place.
  var storage: ObjectIdentifier { ObjectIdentifier(block) }
}

extension KeepsakeJSONEncoder {
  /// Encodes `elements` as ``encode(_:)`` encodes the array, between the bytes `prefix` and
  /// `suffix`, reusing from `memo` the bytes of the elements that are the same values as those
  /// it encoded before.
  ///
  /// The bytes are those of a full encoding: an element is taken from the memo only when its
  /// type has an ``ElementLayout`` (its memory says what it is) and its memory is the memo's
  /// element's, which the memo kept alive; every other element is encoded. The memo's elements
  /// are matched in order, the next one or a few further (an element inserted, or some removed),
  /// so an edit, an append, an insertion or a removal costs what changed.
  ///
  /// The memo is consumed. When it was the only holder of its memory (none of its `Data` is
  /// alive), the new encoding is written over it in place (see ``EncodedBlock``); otherwise
  /// into new memory.
  ///
  /// NB: a type whose `encode(to:)` writes something other than its value (the time of the
  /// save, its coding path) keeps, for an element not encoded again, what it wrote then.
  ///
  /// - Parameters:
  ///   - depth: How many containers `prefix` opens around the array; they count toward the
  ///     depth the encoder refuses.
  /// - Returns: The memo of this encoding, whose ``JSONArrayEncodingMemo/bytes`` are the
  ///   output; `nil` when the usual way must encode the value: an element type without a
  ///   layout, an error (the usual way throws it again), or containers only Foundation writes.
  package func encodeArray<Element: Encodable>(
    _ elements: [Element], reusing memo: consuming JSONArrayEncodingMemo<Element>?,
    prefix: [UInt8] = [], suffix: [UInt8] = [], depth: Int = 0
  ) -> JSONArrayEncodingMemo<Element>? {
    guard let layout = ElementLayout.of(Element.self) else { return nil }
    var previous = consume memo
    guard
      let plan = ArrayEncodingPlan(
        elements, reusing: previous?.elements ?? [], ends: previous?.ends ?? [],
        start: previous?.start ?? 0, layout: layout, depth: depth,
        fixedBytes: prefix.count + suffix.count)
    else { return nil }
    // NB: moved out, not copied: a second holder of its memory would keep it from being
    // written over.
    if var held = previous.take() {
      if plan.canWrite(over: &held, prefix: prefix) {
        let ends = plan.write(over: held, prefix: prefix, suffix: suffix)
        return JSONArrayEncodingMemo(
          elements: elements, block: held.block, start: prefix.count, ends: ends)
      }
      previous = held
    }
    let (block, ends) = plan.write(prefix: prefix, suffix: suffix, from: previous?.block)
    return JSONArrayEncodingMemo(elements: elements, block: block, start: prefix.count, ends: ends)
  }
}
