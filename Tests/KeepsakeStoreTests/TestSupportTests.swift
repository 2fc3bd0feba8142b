@_spi(Testing) import Keepsake
import KeepsakeTesting
import Synchronization
import Testing

@_spi(Testing) @testable import KeepsakeStore

/// KeepsakeStore finds KeepsakeTesting's support (issues, manual clocks) in a test process even
/// when it loads after the first dependency read, as in a hosted test run, and never looks for it
/// in an app or a preview.
@Suite("KeepsakeStore's test support")
struct TestSupportTests {
  /// A stand-in process: whether KeepsakeTesting is loaded yet, its count of loaded code, and how
  /// often the support was looked for.
  final class FakeProcess: Sendable {
    let loaded = Mutex(false)
    let generation = Mutex<UInt64>(1)
    let lookups = Mutex(0)

    func locator(_ runContext: RunContext) -> TestSupportLocator {
      TestSupportLocator(
        runContext: runContext, generation: { self.generation.withLock { $0 } },
        lookup: {
          self.lookups.withLock { $0 += 1 }
          guard self.loaded.withLock({ $0 }) else { return nil }
          return (TestSupportHook.self as Any.Type) as? any KeepsakeStoreTestSupport.Type
        })
    }

    func loadKeepsakeTesting() {
      loaded.withLock { $0 = true }
      generation.withLock { $0 += 1 }
    }
  }

  @Test("Hosted run: support that loads after the first read is found, then kept")
  func hostedStartup() {
    let process = FakeProcess()
    let support = process.locator(.test)
    #expect((0..<20).allSatisfy { _ in support.installed == nil })
    #expect(process.lookups.withLock { $0 } == 1, "no new code, no new look")

    process.loadKeepsakeTesting()
    #expect(support.installed != nil)
    #expect((0..<20).allSatisfy { _ in support.installed != nil })
    #expect(process.lookups.withLock { $0 } == 2)
  }

  @Test("An app or a preview never looks for the support", arguments: [RunContext.live, .preview])
  func neverLooksOutsideTests(_ runContext: RunContext) {
    let process = FakeProcess()
    process.loadKeepsakeTesting()
    let support = process.locator(runContext)
    #expect((0..<100).allSatisfy { _ in support.installed == nil })
    #expect(process.lookups.withLock { $0 } == 0)
  }
}
