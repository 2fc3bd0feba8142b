/// A small, fast random number generator whose whole sequence follows from its seed
/// (SplitMix64), so a campaign run with `--seed S` repeats exactly.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose sequence is determined by `seed`.
  public init(seed: UInt64) {
    self.state = seed
  }

  /// A generator for one item (a fuzz case, a kill) of a seeded run, independent of the others,
  /// so any single item can be reproduced without replaying the ones before it.
  public init(seed: UInt64, item: Int) {
    var mixer = SeededGenerator(
      seed: seed ^ (UInt64(truncatingIfNeeded: item) &* 0x9E37_79B9_7F4A_7C15))
    self.state = mixer.next()
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
