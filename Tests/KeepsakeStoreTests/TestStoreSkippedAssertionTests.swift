import Foundation
import Keepsake
import KeepsakeStore
import Synchronization
import Testing

@testable import KeepsakeTesting

/// Skipped assertions are known issues when a store shows them.
///
/// With `.off(showSkippedAssertions: true)`, what an exhaustive store would fail on is shown with
/// the results without failing the test. Each test here passes only if no failure is recorded,
/// and checks the known issue through the reporter's observer.
@MainActor
@Suite("TestStore: skipped assertions")
struct TestStoreSkippedAssertionTests {
  /// Runs `body` with a store that shows skipped assertions; returns the known issues.
  private func knownIssues(
    _ body: (TestStore<Desk.State, Desk.Action>) async -> Void
  ) async -> [String] {
    let log = Log()
    let observer: @Sendable (String) -> Void = { log.append($0) }
    await IssueReporter.$knownIssueObserver.withValue(observer) {
      let store = TestStore(initialState: Desk.State()) { Desk() }
      store.exhaustivity = .off(showSkippedAssertions: true)
      await body(store)
    }
    return log.messages
  }

  @Test("A state change left unasserted is a known issue with its diff")
  func unassertedChange() async {
    let issues = await knownIssues { store in
      await store.send(.editor(.textChanged("Hi")))
    }
    #expect(
      issues == [
        """
        Skipped assertion (the store is not exhaustive): a state change was not asserted:

            … (2 unchanged)
              session: Shared(.inMemory(\"session\")) nil,
              editor: Composer.State(
          \u{2212}     text: "",
          +     text: "Hi",
                drafts: Shared(.inMemory(\"drafts\")) []
              ),
            … (3 unchanged)

        (Expected: \u{2212}, Actual: +)
        """
      ])
  }

  @Test("A partial assertion passes; the part it left out is a known issue")
  func partialAssertion() async {
    let issues = await knownIssues { store in
      await store.send(.editor(.textChanged("Hi")))
      await store.send(.editor(.saveTapped(UUID(1)))) {
        $0.$drafts.withLock { $0 = [Draft(id: UUID(1), text: "Hi")] }
      }
    }
    #expect(issues.count == 2)
    #expect(issues.last?.contains("\u{2212}     text: \"Hi\",") == true)
  }

  @Test("Received actions skipped on the way to the expected one are a known issue")
  func skippedReceivedActions() async {
    let issues = await knownIssues { store in
      // NB: one effect sends `.signedOut`, then `.refreshed`: two effects running together
      // (a sign-out and a refresh) would send them in either order.
      await store.send(.switchUserTapped).finish()
      await store.receive(.refreshed("alice"))
    }
    #expect(
      issues.contains(
        "Skipped assertion (the store is not exhaustive): 1 received action(s) skipped before "
          + "Desk.Action.refreshed(\"alice\"):\n\n  Desk.Action.signedOut"))
  }

  @Test("Effects still running at finish are a known issue, not a failure")
  func runningEffectsAtFinish() async {
    let issues = await knownIssues { store in
      await store.send(.startTicking)
      await store.finish(timeout: .milliseconds(10))
      await store.skipInFlightEffects(strict: false)
    }
    #expect(
      issues.contains {
        $0.hasPrefix(
          "Skipped assertion (the store is not exhaustive): 1 effect(s) still running after "
            + "waiting 0.01 seconds")
      })
  }

  @Test("Skipping in-flight effects and received actions lists them as known issues")
  func explicitSkips() async {
    let issues = await knownIssues { store in
      await store.send(.startTicking) { $0.isTicking = true }
      await store.skipInFlightEffects()
      await store.send(.refreshTapped) { $0.isRefreshing = true }.finish()
      await store.skipReceivedActions()
      await store.finish()
    }
    #expect(
      issues == [
        "Skipped assertion (the store is not exhaustive): 1 in-flight effect(s) were cancelled. "
          + "Started by:\n\n  Desk.Action.startTicking",
        "Skipped assertion (the store is not exhaustive): 1 received action(s) were skipped:\n\n"
          + "  Desk.Action.refreshed(\"alice\")",
      ])
  }

  @Test("Without showSkippedAssertions nothing is shown")
  func hiddenByDefault() async {
    let log = Log()
    let observer: @Sendable (String) -> Void = { log.append($0) }
    await IssueReporter.$knownIssueObserver.withValue(observer) {
      let store = TestStore(initialState: Desk.State()) { Desk() }
      store.exhaustivity = .off
      await store.send(.editor(.textChanged("Hi")))
      await store.send(.startTicking)
      await store.finish(timeout: .milliseconds(10))
    }
    #expect(log.messages.isEmpty)
  }
}

/// Collects messages from a `@Sendable` closure.
private final class Log: Sendable {
  private let entries = Mutex<[String]>([])
  var messages: [String] { entries.withLock { $0 } }
  func append(_ message: String) { entries.withLock { $0.append(message) } }
}
