import FaultInjection
import Testing

@Suite("SeededRandom")
struct SeededRandomTests {
  @Test("Seed 0 yields SplitMix64's reference sequence")
  func referenceValues() {
    var random = SeededRandom(seed: 0)
    #expect(random.next() == 0xE220_A839_7B1D_CDAF)
    #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(random.next() == 0x06C4_5D18_8009_454F)
  }

  @Test("The same seed repeats its sequence and another seed does not")
  func reproducible() {
    func draws(_ seed: UInt64) -> [UInt64] {
      var random = SeededRandom(seed: seed)
      return (0..<16).map { _ in random.next() }
    }
    #expect(draws(42) == draws(42))
    #expect(draws(42) != draws(43))
  }

  @Test("A chance of 0 never happens, 1 always does, and 0.3 happens about 30% of the time")
  func chances() {
    var random = SeededRandom(seed: 9)
    #expect((0..<100).allSatisfy { _ in !random.chance(0) })
    #expect((0..<100).allSatisfy { _ in random.chance(1) })
    let hits = (0..<10_000).filter { _ in random.chance(0.3) }.count
    #expect((2_800...3_200).contains(hits))
  }

  @Test("It works with the standard library's random APIs")
  func standardLibrary() {
    var first = SeededRandom(seed: 5)
    var second = SeededRandom(seed: 5)
    #expect(Int.random(in: 0..<1_000, using: &first) == Int.random(in: 0..<1_000, using: &second))
    #expect([1, 2, 3, 4, 5].shuffled(using: &first) == [1, 2, 3, 4, 5].shuffled(using: &second))
  }
}
