/// Losses put into the simulated world on purpose: the proof, in the campaign's own tests, that
/// its checker sees a loss, that a failure replays, and that its shrinker keeps it.
///
/// They live in the simulation, never in the library: the library's own past losses are put
/// back as mutants of its source (`Tools/Mutants`), built apart by the `mutants` gate, which
/// checks that the campaign finds each one.
package struct SimulatedFlaws: OptionSet, Sendable {
  package let rawValue: UInt8
  package init(rawValue: UInt8) { self.rawValue = rawValue }

  /// The file system swaps a save's file in without looking at what it takes out, as a plain
  /// `rename` does: a change another program made during the save is written over unseen.
  package static let swapsWithoutLooking = SimulatedFlaws(rawValue: 1)
}
