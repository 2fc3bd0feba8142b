import Keepsake
import Synchronization
import Testing

/// A lookup that fails is tried again once the process loaded code; one that succeeds is kept.
@Suite("Retrying lookups")
struct RetryingLookupTests {
  /// A stand-in for the process: what the lookup finds, and its count of loaded code.
  final class Process: Sendable {
    let available = Mutex<String?>(nil)
    let generation = Mutex<UInt64?>(1)
    let lookups = Mutex(0)

    func lookup() -> RetryingLookup<String> {
      RetryingLookup(
        generation: { self.generation.withLock { $0 } },
        lookup: {
          self.lookups.withLock { $0 += 1 }
          return self.available.withLock { $0 }
        })
    }

    func loadCode(providing value: String? = nil) {
      generation.withLock { $0 = ($0 ?? 0) + 1 }
      if let value { available.withLock { $0 = value } }
    }
  }

  @Test("A miss is not retried until the process loads code")
  func missWaitsForLoadedCode() {
    let process = Process()
    let lookup = process.lookup()
    #expect((0..<100).allSatisfy { _ in lookup.value == nil })
    #expect(process.lookups.withLock { $0 } == 1)

    process.loadCode()
    #expect(lookup.value == nil)
    #expect(process.lookups.withLock { $0 } == 2, "new code, one more look")
  }

  @Test("What appears after a miss is found once the process loaded it, then kept")
  func foundAfterLoadingThenKept() {
    let process = Process()
    let lookup = process.lookup()
    #expect(lookup.value == nil)

    process.loadCode(providing: "test support")
    #expect(lookup.value == "test support")
    process.available.withLock { $0 = nil }
    process.loadCode()
    #expect((0..<100).allSatisfy { _ in lookup.value == "test support" })
    #expect(process.lookups.withLock { $0 } == 2, "found once, never looked up again")
  }

  @Test("Where the platform gives no count of loaded code, every miss is retried")
  func noGenerationRetriesEveryTime() {
    let process = Process()
    process.generation.withLock { $0 = nil }
    let lookup = process.lookup()
    #expect((0..<3).allSatisfy { _ in lookup.value == nil })
    #expect(process.lookups.withLock { $0 } == 3)
    process.available.withLock { $0 = "found" }
    #expect(lookup.value == "found")
  }
}
