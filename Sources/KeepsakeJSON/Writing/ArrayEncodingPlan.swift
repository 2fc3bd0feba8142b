import Foundation

/// What an array's new encoding is made of: runs of the memo's elements, whose bytes are reused,
/// and the elements encoded now; written into new memory, or over the memo's in place.
///
/// Planning encodes every element that must be, so it is the only step that can fail; writing
/// cannot, and begins only once the plan is whole (a failure leaves the memo's bytes as they
/// were).
struct ArrayEncodingPlan {
  enum Segment {
    /// `count` elements of the memo from `first`, with the commas between them.
    case reused(first: Int, count: Int)
    /// One element encoded now, at `start..<end` of the scratch output.
    case fresh(start: Int, end: Int)
  }

  private var segments: [Segment] = []
  /// Where the elements encoded now were written, with the frames that wrote them.
  private let scratch: JSONEncodingState
  /// The memo's element ends and their starts, for reused runs (empty without a memo).
  private let oldEnds: [Int]
  private let oldStart: Int
  /// The bytes from `[` to `]`.
  private var arrayLength = 2
  /// The bytes of everything, prefix and suffix included.
  private(set) var totalLength = 0

  /// How far past the memo's next element an element is looked for, when it is not the next
  /// one: a few elements removed together.
  private static var lookAhead: Int { 8 }

  /// Plans `elements`, encoding those that `memo` does not hold; `nil` when the usual way must
  /// encode them (an error, containers only Foundation writes, nesting too deep).
  ///
  /// NB: the memo's parts, not the memo: a copy of the memo would hold its memory, which is
  /// written over only while its memo is the only holder.
  init?<Element: Encodable>(
    _ elements: [Element], reusing old: [Element], ends oldEnds: [Int], start oldStart: Int,
    layout: ElementLayout, depth: Int, fixedBytes: Int
  ) {
    scratch = JSONEncodingState()
    scratch.enclosingDepth = depth
    scratch.slots.append(JSONEncodingState.Slot())
    let frame = scratch.slotContainer(isObject: false)
    self.oldEnds = oldEnds
    self.oldStart = oldStart
    let planned = elements.withUnsafeBufferPointer { new in
      old.withUnsafeBufferPointer { old in
        (try? plan(new, old, layout: layout, frame: frame)) ?? false
      }
    }
    guard planned, !scratch.needsFoundation else { return nil }
    scratch.closeFrames(above: frame.index - 1)
    scratch.slots.removeLast()
    guard !scratch.isTooDeep else { return nil }
    for segment in segments { arrayLength += length(segment) }
    arrayLength += max(0, segments.count - 1)
    totalLength = fixedBytes + arrayLength
  }

  /// Finds the runs of `old` that `new` holds, in order, and encodes the other elements.
  private mutating func plan<Element: Encodable>(
    _ new: UnsafeBufferPointer<Element>, _ old: UnsafeBufferPointer<Element>,
    layout: ElementLayout, frame: JSONEncodingState.FrameReference
  ) throws -> Bool {
    var container = JSONUnkeyedEncodingContainer(state: scratch, frame: frame)
    let stride = MemoryLayout<Element>.stride
    let newBase = UnsafeRawPointer(new.baseAddress)
    let oldBase = UnsafeRawPointer(old.baseAddress)
    let reusable = oldEnds.count == old.count
    // NB: the memo's elements are matched in order: `next` is the one after the last taken.
    var next = 0
    var index = 0
    while index < new.count {
      if reusable, let newBase, let oldBase,
        let first = (next..<min(old.count, next + 1 + Self.lookAhead)).first(where: {
          layout.same(newBase + index * stride, oldBase + $0 * stride)
        })
      {
        // The run of elements that follow in both.
        var count = 1
        while index + count < new.count, first + count < old.count,
          layout.same(newBase + (index + count) * stride, oldBase + (first + count) * stride)
        {
          count += 1
        }
        segments.append(.reused(first: first, count: count))
        index += count
        next = first + count
        continue
      }
      // NB: the element's place in the array, as its coding path says it.
      guard let frameIndex = scratch.activate(frame) else { return false }
      scratch.frames[frameIndex].count = index
      let before = scratch.output.count
      try container.encode(new[index])
      guard !scratch.needsFoundation else { return false }
      segments.append(.fresh(start: before + (index > 0 ? 1 : 0), end: scratch.output.count))
      index += 1
    }
    return true
  }

  private func length(_ segment: Segment) -> Int {
    switch segment {
    case .reused(let first, let count): oldEnds[first + count - 1] - oldStart(of: first)
    case .fresh(let start, let end): end - start
    }
  }

  /// Where the memo's element `index` starts: after its `[`, or after the comma before it.
  private func oldStart(of index: Int) -> Int {
    index == 0 ? oldStart + 1 : oldEnds[index - 1] + 1
  }

  /// Where each segment goes in the new bytes, the array starting at `start`.
  private func offsets(from start: Int) -> [Int] {
    var offsets: [Int] = []
    offsets.reserveCapacity(segments.count)
    var position = start + 1
    for (index, segment) in segments.enumerated() {
      if index > 0 { position += 1 }
      offsets.append(position)
      position += length(segment)
    }
    return offsets
  }

  /// Each element's end in the new bytes.
  private func ends(at offsets: [Int]) -> [Int] {
    var ends: [Int] = []
    for (segment, offset) in zip(segments, offsets) {
      switch segment {
      case .reused(let first, let count):
        let shift = offset - oldStart(of: first)
        for taken in first..<first + count { ends.append(oldEnds[taken] + shift) }
      case .fresh(let start, let end):
        ends.append(offset + end - start)
      }
    }
    return ends
  }

  // MARK: - Writing

  /// Whether the new bytes can be written over `memo`'s: it holds the only reference to its
  /// memory (no `Data` of it is alive: each holds one), it starts with the same prefix, and the
  /// memory has (or was given) room for the new bytes.
  func canWrite<Element>(
    over memo: inout JSONArrayEncodingMemo<Element>, prefix: [UInt8]
  ) -> Bool {
    guard isKnownUniquelyReferenced(&memo.block), memo.start == prefix.count,
      memo.block.count >= prefix.count
    else { return false }
    let address = memo.block.address
    let samePrefix = prefix.withUnsafeBytes { prefix in
      guard let start = prefix.baseAddress else { return true }
      return memcmp(address, start, prefix.count) == 0
    }
    return samePrefix && memo.block.reserve(totalLength)
  }

  /// Writes the new bytes over `memo`'s (see ``canWrite(over:prefix:)``); returns the elements'
  /// ends.
  ///
  /// NB: every reused run keeps its order, so each moves once, clear of the others: those going
  /// left (or staying) from the first on, then those going right from the last on; what a run
  /// leaves behind is filled last, with the commas and the elements encoded now.
  func write<Element>(
    over memo: JSONArrayEncodingMemo<Element>, prefix: [UInt8], suffix: [UInt8]
  ) -> [Int] {
    let base = memo.block.address
    let offsets = offsets(from: memo.start)
    func move(_ index: Int, rightward: Bool) {
      guard case .reused(let first, _) = segments[index] else { return }
      let from = oldStart(of: first)
      let to = offsets[index]
      guard (to > from) == rightward, to != from else { return }
      memmove(base + to, base + from, length(segments[index]))
    }
    for index in segments.indices { move(index, rightward: false) }
    for index in segments.indices.reversed() { move(index, rightward: true) }
    for (index, segment) in segments.enumerated() {
      if index > 0 {
        base.storeBytes(of: UInt8(ascii: ","), toByteOffset: offsets[index] - 1, as: UInt8.self)
      }
      if case .fresh(let start, let end) = segment {
        (base + offsets[index]).copyMemory(
          from: scratch.output.pointer(at: start), byteCount: end - start)
      }
    }
    let close = memo.start + arrayLength - 1
    base.storeBytes(of: UInt8(ascii: "]"), toByteOffset: close, as: UInt8.self)
    suffix.withUnsafeBytes { suffix in
      if let source = suffix.baseAddress {
        (base + close + 1).copyMemory(from: source, byteCount: suffix.count)
      }
    }
    memo.block.setCount(totalLength)
    return ends(at: offsets)
  }

  /// Writes the new bytes into new memory, reusing `memo`'s runs; returns the memory and the
  /// elements' ends.
  func write(prefix: [UInt8], suffix: [UInt8], from block: EncodedBlock?) -> (EncodedBlock, [Int]) {
    // NB: room to grow, so that the next encoding, a little longer, is written in place.
    var output = JSONOutput(capacity: totalLength + totalLength / 8)
    output.append(contentsOf: prefix)
    let offsets = offsets(from: output.count)
    output.append(UInt8(ascii: "["))
    let old = block?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
    for (index, segment) in segments.enumerated() {
      if index > 0 { output.append(UInt8(ascii: ",")) }
      switch segment {
      case .reused(let first, let count):
        let run = UnsafeRawBufferPointer(
          rebasing: old[oldStart(of: first)..<oldEnds[first + count - 1]])
        output.append(contentsOf: run.bindMemory(to: UInt8.self))
      case .fresh(let start, let end):
        output.append(
          contentsOf: UnsafeBufferPointer(
            start: scratch.output.pointer(at: start), count: end - start))
      }
    }
    output.append(UInt8(ascii: "]"))
    output.append(contentsOf: suffix)
    return (output.takeBlock(), ends(at: offsets))
  }
}
