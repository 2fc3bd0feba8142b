import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Synchronization
import Testing

/// A test that never calls `finish()` is still checked when its store goes away: inside the
/// test, so the failure lands on the test, at the line that made the store.
@MainActor
@Suite("TestStore: end of test")
struct TestStoreEndOfTestTests {
  @Test("A store dropped with a received action never asserted fails the test")
  func unassertedReceivedActionAtTheEnd() async {
    await withKnownIssue {
      do {
        let store = TestStore(initialState: Desk.State()) { Desk() }
        await store.send(.refreshTapped) { $0.isRefreshing = true }.finish()
      }
    } matching: { issue in
      message(of: issue).contains("1 received action(s) were never asserted")
    }
  }

  @Test("A store dropped with an effect still running fails the test, naming the action")
  func effectStillRunningAtTheEnd() async {
    await withKnownIssue {
      do {
        let store = TestStore(initialState: Desk.State()) { Desk() }
        await store.send(.startTicking) { $0.isTicking = true }
      }
    } matching: { issue in
      let text = message(of: issue)
      return text.contains("1 effect(s) were still running at the end of the test")
        && text.contains("startTicking")
    }
  }

  @Test("An effect that ends right after the last action it sends does not fail the test")
  func effectEndingAfterItsLastAction() async {
    // NB: the test is woken by the action before the effect's task returns; the end-of-test
    // check must let such an effect finish rather than fail a correct test now and then.
    for _ in 0..<20 {
      let store = TestStore(initialState: Desk.State()) { Desk() }
      await store.send(.refreshTapped) { $0.isRefreshing = true }
      await store.receive(.refreshed("alice")) {
        $0.isRefreshing = false
        $0.$session.withLock { $0 = "alice" }
      }
    }
  }

  @Test("A non-exhaustive store may be dropped with work left over")
  func nonExhaustiveStoreMayBeDropped() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    store.exhaustivity = .off
    await store.send(.refreshTapped).finish()
  }

  @Test("A finished store is not checked again when dropped")
  func finishedStoreIsNotCheckedAgain() async {
    let issues = Mutex<[String]>([])
    await withKnownIssue {
      do {
        let store = TestStore(initialState: Desk.State()) { Desk() }
        await store.send(.refreshTapped) { $0.isRefreshing = true }
        // The received action is left unasserted: finish() reports it, once.
        await store.finish()
      }
      // The store is gone here; its end-of-test check must not report the action again.
    } matching: { issue in
      issues.withLock { $0.append(message(of: issue)) }
      return true
    }
    let reported = issues.withLock { $0 }
    // NB: only the received action counts: on a loaded machine finish() may also report the
    // refresh effect still running, which is not what this test is about.
    let aboutTheAction = reported.filter { $0.contains("received action") }
    #expect(aboutTheAction.count == 1, "\(reported)")
    #expect(!reported.contains { $0.contains("at the end of the test") }, "\(reported)")
  }
}
