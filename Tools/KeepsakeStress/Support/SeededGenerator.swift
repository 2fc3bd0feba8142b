import FaultInjection

/// A small, fast random number generator whose whole sequence follows from its seed
/// (SplitMix64), so a campaign run with `--seed S` repeats exactly.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  // NB: FaultInjection's `SeededRandom` is the SplitMix64 the campaigns always used, so recorded
  // seeds replay the same runs.
  private var base: SeededRandom

  /// A generator whose sequence is determined by `seed`.
  public init(seed: UInt64) {
    self.base = SeededRandom(seed: seed)
  }

  /// A generator for one item (a fuzz case, a kill) of a seeded run, independent of the others,
  /// so any single item can be reproduced without replaying the ones before it.
  public init(seed: UInt64, item: Int) {
    var mixer = SeededRandom(
      seed: seed ^ (UInt64(truncatingIfNeeded: item) &* 0x9E37_79B9_7F4A_7C15))
    self.base = SeededRandom(seed: mixer.next())
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 { base.next() }
}
