import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one JSON writer's output: a growable byte buffer that becomes the `Data` without a copy,
/// and the spelling of strings and integers, shared by the encoder and the tree writer.
///
/// NB: an `[UInt8]` grown by doubling and then copied into `Data` holds the output twice at the
/// end (and twice again while growing), which made the encoder's peak memory higher than
/// Foundation's for large files. This buffer grows with `realloc` (which remaps large blocks
/// instead of copying them) and hands its memory to `Data` at the end.
struct JSONOutput: ~Copyable {
  private var base: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var capacity: Int

  init(capacity: Int = 4096) {
    self.capacity = max(16, capacity)
    guard let memory = malloc(self.capacity) else {
      preconditionFailure("Keepsake's JSON encoder could not allocate \(self.capacity) bytes.")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
    Self.adviseLargePages(memory, capacity: self.capacity)
  }

  deinit { free(base) }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    base[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    if count + bytes.count > capacity { grow(to: count + bytes.count) }
    (base + count).update(from: source, count: bytes.count)
    count += bytes.count
  }

  mutating func append(contentsOf bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
  }

  mutating func append(contentsOf text: String) {
    var text = text
    text.withUTF8 { append(contentsOf: $0) }
  }

  /// Appends `value` in decimal.
  mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
    guard T.bitWidth <= 64 else { return append(contentsOf: value.description) }
    let negative = value < 0
    // The magnitude of Int64.min does not fit an Int64, but does a UInt64.
    var magnitude = negative ? UInt64(bitPattern: 0 &- Int64(value)) : UInt64(value)
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var index = 20
      repeat {
        index -= 1
        digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude != 0
      if negative { append(UInt8(ascii: "-")) }
      append(contentsOf: UnsafeBufferPointer(rebasing: digits[index..<20]))
    }
  }

  /// Appends a string's UTF-8 escaped as Foundation escapes it: `"`, `\`, the control
  /// characters (the common ones by name, the others as lowercase `\u00xx`) and, when asked, `/`;
  /// nothing else.
  /// - Returns: Whether any byte needed escaping.
  mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, escapingSlash: Bool) -> Bool {
    guard let base = utf8.baseAddress else { return false }
    // NB: without `/` to escape, the search looks for a quote in its place, which it already
    // does: one loop serves both, with no branch per word.
    let slash = escapingSlash ? UInt8(ascii: "/") : JSONBytes.quote
    let count = utf8.count
    var runStart = 0
    var index = 0
    var escapedAny = false
    while true {
      index = JSONBytes.firstQuoteBackslashControl(base, from: index, to: count, also: slash)
      if index > runStart {
        append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
      }
      guard index < count else { return escapedAny }
      escapedAny = true
      let byte = base[index]
      append(JSONBytes.backslash)
      switch byte {
      case JSONBytes.quote, JSONBytes.backslash, UInt8(ascii: "/"): append(byte)
      case 0x08: append(UInt8(ascii: "b"))
      case 0x0C: append(UInt8(ascii: "f"))
      case 0x0A: append(UInt8(ascii: "n"))
      case 0x0D: append(UInt8(ascii: "r"))
      case 0x09: append(UInt8(ascii: "t"))
      default:
        let hex: StaticString = "0123456789abcdef"
        append(contentsOf: [
          UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
          hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0x0F)],
        ])
      }
      index += 1
      runStart = index
    }
  }

  /// The bytes from `start` to `end`, valid until the next change.
  func bytes(from start: Int, to end: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + start, count: end - start)
  }

  /// The address of the byte at `offset`, valid until the next change.
  func pointer(at offset: Int) -> UnsafePointer<UInt8> { UnsafePointer(base + offset) }

  /// Forgets the bytes from `start` on.
  mutating func truncate(to start: Int) {
    count = min(count, start)
  }

  /// The output as an ``EncodedBlock``, which takes over the memory (with its unused tail, room
  /// for the next encoding written in place); the buffer is empty afterwards.
  mutating func takeBlock() -> EncodedBlock {
    let block = EncodedBlock(
      taking: UnsafeMutableRawPointer(base), capacity: capacity, count: count)
    startOver()
    return block
  }

  /// The output as `Data`, which takes over the memory; the buffer is empty afterwards.
  mutating func takeData() -> Data {
    let bytes = count
    // Give the unused tail back before handing the block over.
    let block = realloc(base, max(bytes, 1)) ?? UnsafeMutableRawPointer(base)
    let data = Data(bytesNoCopy: block, count: bytes, deallocator: .free)
    startOver()
    return data
  }

  /// An empty buffer of its own, the memory having been handed over.
  private mutating func startOver() {
    guard let fresh = malloc(16) else {
      preconditionFailure("Keepsake's JSON encoder could not allocate 16 bytes.")
    }
    base = fresh.assumingMemoryBound(to: UInt8.self)
    capacity = 16
    count = 0
  }

  private mutating func grow(to needed: Int) {
    var newCapacity = capacity * 2
    while newCapacity < needed { newCapacity *= 2 }
    guard let memory = realloc(base, newCapacity) else {
      preconditionFailure("Keepsake's JSON encoder could not allocate \(newCapacity) bytes.")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
    Self.adviseLargePages(memory, capacity: newCapacity)
  }

  /// Asks Linux for 2 MiB pages in a large block, before its pages are first written.
  ///
  /// NB: a large file written again copies megabytes into a fresh block (the encoder's memo
  /// reuses the bytes of unchanged elements), and with 4 KiB pages the kernel's faults to map
  /// and clear each page took longer than the copy. Where large pages are off, or on other
  /// systems, nothing changes.
  private static func adviseLargePages(_ block: UnsafeMutableRawPointer, capacity: Int) {
    #if os(Linux)
      let page = 2 << 20
      guard capacity >= 2 * page else { return }
      let start = (Int(bitPattern: block) + page - 1) & ~(page - 1)
      let end = (Int(bitPattern: block) + capacity) & ~(page - 1)
      guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
      _ = madvise(aligned, end - start, MADV_HUGEPAGE)
    #endif
  }
}
