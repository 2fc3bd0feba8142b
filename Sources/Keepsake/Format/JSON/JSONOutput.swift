import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The encoder's output: a growable byte buffer that becomes the `Data` without a copy.
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

  /// The output as `Data`, which takes over the memory; the buffer is empty afterwards.
  mutating func takeData() -> Data {
    let bytes = count
    // Give the unused tail back before handing the block over.
    let block = realloc(base, max(bytes, 1)) ?? UnsafeMutableRawPointer(base)
    let data = Data(bytesNoCopy: block, count: bytes, deallocator: .free)
    guard let fresh = malloc(16) else {
      preconditionFailure("Keepsake's JSON encoder could not allocate 16 bytes.")
    }
    base = fresh.assumingMemoryBound(to: UInt8.self)
    capacity = 16
    count = 0
    return data
  }

  private mutating func grow(to needed: Int) {
    var newCapacity = capacity * 2
    while newCapacity < needed { newCapacity *= 2 }
    guard let memory = realloc(base, newCapacity) else {
      preconditionFailure("Keepsake's JSON encoder could not allocate \(newCapacity) bytes.")
    }
    base = memory.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
  }
}
