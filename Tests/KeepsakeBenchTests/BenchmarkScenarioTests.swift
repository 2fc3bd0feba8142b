import Foundation
import Testing

@testable import keepsake_bench

/// Runs every benchmark scenario once at the smallest size, so the benchmark keeps working.
///
/// No timing is asserted: figures are only meaningful as ratios in a release build.
@Suite("Benchmark scenarios")
struct BenchmarkScenarioTests {
  @Test("Every scenario runs at the smallest size and reports its figures")
  func everyScenarioRuns() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-bench-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    var benchmark = Benchmark(folder: folder)
    benchmark.sizes = [1_000]
    benchmark.repetitions = 1
    let results = try await benchmark.run()
    #expect(
      Set(results.map(\.scenario)) == [
        "durable-save", "cold-load", "migrated-load", "caller-mutation", "coalescing",
        "in-memory-mutation", "in-memory-append",
      ])
    for result in results where result.scenario != "coalescing" {
      #expect(result.keepsake > 0 && result.baseline > 0, "\(result.scenario)")
      #expect(result.json["ratio"] as? Double == result.ratio)
    }
    let coalescing = try #require(results.first { $0.scenario == "coalescing" })
    #expect(coalescing.finalValueOnDisk == true)
    #expect(coalescing.json["final-value-on-disk"] as? Bool == true)
    let mutation = try #require(results.first { $0.scenario == "caller-mutation" })
    #expect(mutation.note == "no file I/O on caller")
  }

  @Test("Peak memory is read from the process status")
  func peakMemory() throws {
    let bytes = try #require(MemoryChild.peakResidentBytes())
    #expect(bytes > 1_000_000)
  }
}
