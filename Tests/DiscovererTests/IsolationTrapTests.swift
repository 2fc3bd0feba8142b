import DiscovererFeature
import Foundation
import IsolationTrap
import Testing

// The founding article's trap, shown as it happens, next to its two fixes. `batched(into:)` is
// the article's helper as written, in a module built with `defaultIsolation(MainActor.self)`:
// MainActor without a word in the source. Across modules its interface shows no isolation, so
// a caller anywhere compiles, and the check in its closure traps at run time off the main actor.

// NB: deliberately NOT `@MainActor`, as in the article: Swift Testing runs this suite on a
// background executor.
@Suite("The default-isolation trap, as it happens")
struct IsolationTrapTests {
  @Test(
    "A pure-looking helper, MainActor by default isolation, kills the process off the main actor")
  func unannotatedHelperKillsTheProcess() async throws {
    // NB: an exit test runs its body in a child process, so the trap ends that process, not the
    // test run; in the article it ended the run, and every test still running "failed".
    let result = await #expect(processExitsWith: .failure) {
      _ = Array(1...7).batched(into: 3)
    }
    // Killed by a signal (`_dispatch_assert_queue_fail`): SIGILL here, SIGTRAP on Apple's arm64.
    guard case .signal = try #require(result).exitStatus else {
      Issue.record("the process exited instead of being killed: \(String(describing: result))")
      return
    }
  }

  @Test("The first fix: the helper declared nonisolated runs off the main actor")
  func nonisolatedHelperRuns() async {
    let chunks = await Task.detached { Array(1...7).chunked(into: 3) }.value
    #expect(chunks == [[1, 2, 3], [4, 5, 6], [7]])
  }
}

/// The second fix: the suite on the main actor, as every other suite of the project is.
@MainActor
@Suite("The default-isolation trap, avoided on the main actor")
struct IsolationTrapOnMainActorTests {
  @Test("A suite on the main actor calls the same helper safely")
  func mainActorSuiteCallsTheHelper() {
    #expect(Array(1...7).batched(into: 3) == [[1, 2, 3], [4, 5, 6], [7]])
  }
}
