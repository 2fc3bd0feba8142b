/// A small, deterministic random number generator (SplitMix64).
///
/// The same seed always yields the same sequence on every platform and every
/// run, which is what makes a random fault rate reproducible: a failing test
/// run can be replayed exactly by keeping its seed.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let roll = Double.random(in: 0..<1, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
  private var state: UInt64

  /// Creates a generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// Returns the next value in the sequence.
  public mutating func next() -> UInt64 {
    // The constants are SplitMix64's published ones; changing them would make
    // every recorded seed replay a different run.
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// Returns `true` with probability `rate` (clamped to 0...1).
  ///
  /// Uses the top 53 bits of one draw, so each call advances the sequence by
  /// exactly one step, whatever the rate.
  public mutating func chance(_ rate: Double) -> Bool {
    let unit = Double(next() >> 11) * 0x1p-53
    return unit < rate
  }
}
