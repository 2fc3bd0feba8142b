import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The memory holding an array's encoding, kept by its memo: handed out as `Data`, and written
/// again in place by the next encoding of the same array once no `Data` of it is left.
///
/// NB: writing a large file again copied megabytes into a fresh block, whose every page the
/// kernel first maps and clears; in place, only what follows a changed element moves. A block
/// is written only by the encoding that holds its only reference: every `Data` it handed out
/// holds one too (its deallocator keeps the block alive), so whoever still holds the bytes of a
/// save (a write in progress, a caller's copy) reads them unchanged, and the next encoding
/// takes a new block.
final class EncodedBlock: @unchecked Sendable {
  // NB: `@unchecked`: the memory is written only as said above, by one encoding at a time.
  private(set) var address: UnsafeMutableRawPointer
  private(set) var capacity: Int
  /// How many of the first bytes are the encoding.
  private(set) var count: Int

  /// Takes over `address`, a `malloc`ed block of `capacity` bytes whose first `count` are the
  /// encoding.
  init(taking address: UnsafeMutableRawPointer, capacity: Int, count: Int) {
    self.address = address
    self.capacity = capacity
    self.count = count
  }

  deinit { free(address) }

  /// The bytes, as `Data` that shares the block; while it lives, the block is not written.
  func data() -> Data {
    guard count > 0 else { return Data() }
    return Data(
      bytesNoCopy: address, count: count,
      deallocator: .custom { [self] _, _ in withExtendedLifetime(self) {} })
  }

  /// The bytes, read in place; only while the block cannot be written (its memo's encoding).
  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: address, count: count) }

  /// Makes room for `needed` bytes, keeping the block's content; `false` when memory ran out.
  func reserve(_ needed: Int) -> Bool {
    guard needed > capacity else { return true }
    let grown = needed + needed / 8
    guard let moved = realloc(address, grown) else { return false }
    address = moved
    capacity = grown
    return true
  }

  /// The encoding is now the first `count` bytes.
  func setCount(_ count: Int) { self.count = count }
}
