import Foundation

/// What encoding an array leaves for the next encoding of the same array: the elements, the
/// bytes written and where each element ends in them.
///
/// When a few elements changed since (one draft edited among 100,000), the others are not
/// encoded again: their bytes are copied from here, so a save costs what changed plus a copy of
/// the file's bytes (see ``KeepsakeJSONEncoder/encodeArray(_:reusing:prefix:suffix:depth:)``).
package struct JSONArrayEncodingMemo<Element> {
  /// The elements encoded, kept alive so that an element with the same bytes as one of them is
  /// that same value (see ``ElementLayout``).
  let elements: [Element]
  /// The bytes written: the prefix, the array, the suffix.
  package let bytes: Data
  /// Where the array's `[` is in ``bytes``.
  let start: Int
  /// For each element, the offset in ``bytes`` just past its last byte.
  let ends: [Int]

  /// Encodings larger than this leave no memo: a memo keeps the bytes alive beside the value.
  package static var maximumSize: Int { 64 << 20 }

  /// Where element `index`'s bytes start: after the `[`, or after the comma that follows the
  /// element before it.
  func startOfElement(_ index: Int) -> Int { index == 0 ? start + 1 : ends[index - 1] + 1 }
}

extension KeepsakeJSONEncoder {
  /// Encodes `elements` as ``encode(_:)`` encodes the array, between the bytes `prefix` and
  /// `suffix`, copying from `memo` the bytes of the elements that are the same values as those
  /// it encoded before.
  ///
  /// The bytes are those of a full encoding: an element is taken from the memo only when its
  /// type has an ``ElementLayout`` (its memory says what it is) and its memory is the memo's
  /// element's, which the memo kept alive; every other element is encoded. The memo's elements
  /// are matched in order, the next one or a few further (an element inserted, or some removed),
  /// so an edit, an append, an insertion or a removal costs what changed.
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
    _ elements: [Element], reusing memo: JSONArrayEncodingMemo<Element>?, prefix: [UInt8] = [],
    suffix: [UInt8] = [], depth: Int = 0
  ) -> JSONArrayEncodingMemo<Element>? {
    guard let layout = ElementLayout.of(Element.self) else { return nil }
    let state = JSONEncodingState(
      capacity: (memo?.bytes.count ?? 0) + prefix.count + suffix.count + 4096)
    state.enclosingDepth = depth
    state.output.append(contentsOf: prefix)
    let start = state.output.count
    state.slots.append(JSONEncodingState.Slot())
    let frame = state.slotContainer(isObject: false)
    let ends = elements.withUnsafeBufferPointer { new in
      let old = memo?.elements ?? []
      return old.withUnsafeBufferPointer { old in
        try? Self.writeElements(
          new, reusing: memo, old, layout: layout, into: state, frame: frame)
      }
    }
    guard let ends, !state.needsFoundation else { return nil }
    state.closeFrames(above: frame.index - 1)
    state.slots.removeLast()
    guard !state.isTooDeep else { return nil }
    state.output.append(contentsOf: suffix)
    return JSONArrayEncodingMemo(
      elements: elements, bytes: state.output.takeData(), start: start, ends: ends)
  }

  /// How far past the memo's next element an element is looked for, when it is not the next
  /// one: a few elements removed together.
  private static var lookAhead: Int { 8 }

  /// Writes the elements into `frame`, as `Array.encode(to:)` does, and returns where each ends.
  private static func writeElements<Element: Encodable>(
    _ new: UnsafeBufferPointer<Element>, reusing memo: JSONArrayEncodingMemo<Element>?,
    _ old: UnsafeBufferPointer<Element>, layout: ElementLayout, into state: JSONEncodingState,
    frame: JSONEncodingState.FrameReference
  ) throws -> [Int]? {
    var container = JSONUnkeyedEncodingContainer(state: state, frame: frame)
    var ends: [Int] = []
    ends.reserveCapacity(new.count)
    let stride = MemoryLayout<Element>.stride
    let newBase = UnsafeRawPointer(new.baseAddress)
    let oldBase = UnsafeRawPointer(old.baseAddress)
    // NB: the memo's elements are matched in order: `next` is the one after the last taken.
    var next = 0
    var index = 0
    while index < new.count {
      var match: Int? = nil
      if let memo, let newBase, let oldBase, memo.ends.count == old.count {
        let element = newBase + index * stride
        var candidate = next
        while candidate < min(old.count, next + 1 + lookAhead) {
          if layout.same(element, oldBase + candidate * stride) {
            match = candidate
            break
          }
          candidate += 1
        }
        if let first = match {
          // The run of elements that follow in both.
          var count = 1
          while index + count < new.count, first + count < old.count,
            layout.same(newBase + (index + count) * stride, oldBase + (first + count) * stride)
          {
            count += 1
          }
          guard let frameIndex = state.activate(frame) else { return nil }
          if state.frames[frameIndex].count > 0 { state.output.append(UInt8(ascii: ",")) }
          let from = memo.startOfElement(first)
          let shift = state.output.count - from
          memo.bytes.withUnsafeBytes { bytes in
            let run = UnsafeRawBufferPointer(rebasing: bytes[from..<memo.ends[first + count - 1]])
            state.output.append(contentsOf: run.bindMemory(to: UInt8.self))
          }
          for taken in first..<first + count { ends.append(memo.ends[taken] + shift) }
          state.frames[frameIndex].count += count
          index += count
          next = first + count
          continue
        }
      }
      try container.encode(new[index])
      guard !state.needsFoundation else { return nil }
      ends.append(state.output.count)
      index += 1
    }
    return ends
  }
}
