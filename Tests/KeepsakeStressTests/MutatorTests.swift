import Foundation
import KeepsakeStress
import Testing

@Suite("Mutator and fuzz cases")
struct MutatorTests {
  @Test("A case follows from the seed and its index alone")
  func reproducible() {
    for index in [1, 3, 1001, 19_999] {
      let first = FuzzCase.make(seed: 42, index: index)
      let again = FuzzCase.make(seed: 42, index: index)
      #expect(first.bytes == again.bytes)
      #expect(first.damage == again.damage)
    }
    #expect(FuzzCase.make(seed: 42, index: 1).bytes != FuzzCase.make(seed: 43, index: 1).bytes)
  }

  @Test("The fixed table truncates every fixture at every length")
  func truncationsAreExhaustive() {
    let lengths = Fixtures.all.map { $0.bytes.count + 1 }.reduce(0, +)
    let truncations = (0..<FuzzCase.systematicCount).map { FuzzCase.make(seed: 1, index: $0 * 2) }
      .filter { $0.damage.hasPrefix("truncated to ") }
    #expect(truncations.count == lengths)
    #expect(FuzzCase.systematicCount * 2 <= 20_000, "the default run covers the whole table")
  }

  @Test("Every kind of damage changes the bytes", arguments: Mutator.Kind.allCases)
  func everyKindDamages(_ kind: Mutator.Kind) {
    let fixture = Fixtures.all[3].bytes
    var changed = 0
    for seed in 0..<20 {
      var random = SeededGenerator(seed: UInt64(seed))
      let (bytes, damage) = Mutator.mutate(fixture, kind: kind, using: &random)
      #expect(!damage.isEmpty)
      if bytes != fixture { changed += 1 }
    }
    #expect(changed >= 15, "\(kind) left the fixture unchanged \(20 - changed) times in 20")
  }
}
