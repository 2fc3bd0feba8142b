import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Testing

@MainActor
@Suite("TestStore: failure messages")
struct TestStoreFailureTests {
  @Test("A state that differs from the expectation fails with a diff")
  func mismatch() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.send(.editor(.textChanged("Hello"))) { $0.editor.text = "Hi" }
    } matching: { issue in
      message(of: issue) == """
        A state change does not match expectation:

            … (2 unchanged)
              session: Shared(.inMemory(\"session\")) nil,
              editor: Composer.State(
          \u{2212}     text: "Hi",
          +     text: "Hello",
                drafts: Shared(.inMemory(\"drafts\")) []
              ),
            … (3 unchanged)

        (Expected: \u{2212}, Actual: +)
        """
    }
  }

  @Test("A change without a closure fails")
  func missingClosure() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.send(.editor(.textChanged("Hi")))
    } matching: { issue in
      message(of: issue).hasPrefix("State was not expected to change, but a change occurred:")
        && message(of: issue).contains("+     text: \"Hi\",")
    }
  }

  @Test("A closure that changes nothing, when nothing changed, fails")
  func closureChangesNothing() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.send(.editor(.textChanged(""))) { $0.editor.text = "" }
    } matching: { issue in
      message(of: issue).hasPrefix("Expected state to change, but it did not")
    }
  }

  @Test("A received action that is not asserted fails the next step")
  func unassertedReceivedAction() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.refreshTapped) { $0.isRefreshing = true }.finish()

    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      message(of: issue).hasPrefix("Must handle 1 received action(s) before finishing:")
        && message(of: issue).contains("Desk.Action.refreshed(\"alice\")")
    }
  }

  @Test("An effect still running at finish fails")
  func effectStillRunning() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.startTicking) { $0.isTicking = true }

    await withKnownIssue {
      await store.finish(timeout: .milliseconds(10))
    } matching: { issue in
      message(of: issue).hasPrefix("1 effect(s) still running after waiting")
        && message(of: issue).contains("Desk.Action.startTicking")
    }
  }

  @Test("Waiting for an action that never comes says what it waited for")
  func receiveWithNothingRunning() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.receive(.refreshed("alice"))
    } matching: { issue in
      message(of: issue) == """
        Expected to receive Desk.Action.refreshed("alice"), but none was received and no \
        effects are running.
        """
    }
  }

  @Test("Waiting times out while an effect keeps running")
  func receiveTimesOut() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.startTicking) { $0.isTicking = true }

    await withKnownIssue {
      await store.receive(.tick, timeout: .milliseconds(10))
    } matching: { issue in
      message(of: issue).contains("none was received within")
    }
    await store.send(.cancelTicking) { $0.isTicking = false }
  }

  @Test("Receiving another action than expected fails with a diff of the actions")
  func unexpectedAction() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.refreshTapped) { $0.isRefreshing = true }

    await withKnownIssue {
      await store.receive(.refreshed("bob")) {
        $0.isRefreshing = false
        $0.$session.withLock { $0 = "alice" }
      }
    } matching: { issue in
      message(of: issue) == """
        Received an unexpected action:

          \u{2212} Desk.Action.refreshed("bob")
          + Desk.Action.refreshed("alice")

        (Expected: \u{2212}, Received: +)
        """
    }
  }
}
