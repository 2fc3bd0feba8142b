import Foundation

extension UUID {
  /// A readable, fixed UUID for tests: `UUID(1)` is `00000000-0000-0000-0000-000000000001`.
  ///
  /// The integer is written in hexadecimal in the last group, so `UUID(255)` is
  /// `00000000-0000-0000-0000-0000000000FF`. These are the UUIDs ``UUIDGenerator/incrementing``
  /// makes, in order.
  ///
  /// ```swift
  /// $drafts.withLock { $0 = [Draft(id: UUID(0), body: "unfinished")] }
  /// ```
  ///
  /// - Precondition: `intValue` is in `0...0xFFFF_FFFF_FFFF` (it fits in the last group).
  public init(_ intValue: Int) {
    precondition(
      (0...0xFFFF_FFFF_FFFF).contains(intValue),
      "UUID(_:) takes an integer in 0...0xFFFF_FFFF_FFFF (the last 12 hex digits), got \(intValue)."
    )
    let value = UInt64(intValue)
    func byte(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: value >> shift) }
    self.init(
      uuid: (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        byte(40), byte(32), byte(24), byte(16), byte(8), byte(0)
      ))
  }
}
