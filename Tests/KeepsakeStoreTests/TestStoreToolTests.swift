import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Testing

extension Desk.Action {
  /// The user of a `refreshed` action, the way a case path reads it.
  var refreshedUser: String? {
    if case .refreshed(let user) = self { user } else { nil }
  }
}

@MainActor
@Suite("TestStore: tools")
struct TestStoreToolTests {
  // MARK: - Receiving by case

  @Test("receive(Action.case) accepts an action of that case, whatever its payload")
  func receiveByCase() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }
    await store.receive(Desk.Action.refreshed) {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.finish()
  }

  @Test("receive(Action.case) fails on an action of another case, showing it")
  func receiveByCaseFails() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.refreshTapped) { $0.isRefreshing = true }

    await withKnownIssue {
      await store.receive(Desk.Action.draftDiscarded) {
        $0.isRefreshing = false
        $0.$session.withLock { $0 = "alice" }
      }
    } matching: { issue in
      message(of: issue) == """
        Received an unexpected action:

          Desk.Action.refreshed("alice")
        """
    }
  }

  @Test("receive(Action.case, payload) checks the payload")
  func receiveByCaseAndPayload() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }
    await store.receive(Desk.Action.refreshed, "alice") {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.finish()
  }

  @Test("receive(Action.case, payload) fails on another payload with a diff of the actions")
  func receiveByCaseAndPayloadFails() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.refreshTapped) { $0.isRefreshing = true }

    await withKnownIssue {
      await store.receive(Desk.Action.refreshed, "bob") {
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

  @Test("receive(\\.extractor) and receive(\\.extractor, payload) accept the case")
  func receiveByExtractor() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }
    await store.receive(\.refreshedUser) {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.send(.refreshTapped) { $0.isRefreshing = true }
    await store.receive(\.refreshedUser, "alice") { $0.isRefreshing = false }
    await store.finish()
  }

  @Test("receive(\\.extractor, payload) fails on another payload with a diff of the payloads")
  func receiveByExtractorFails() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.send(.refreshTapped) { $0.isRefreshing = true }

    await withKnownIssue {
      await store.receive(\.refreshedUser, "bob") {
        $0.isRefreshing = false
        $0.$session.withLock { $0 = "alice" }
      }
    } matching: { issue in
      message(of: issue) == """
        Received an action of the expected case with another payload:

          \u{2212} "bob"
          + "alice"

        (Expected: \u{2212}, Received: +)
        """
    }
  }

  @Test("receive(\\.extractor) with nothing to receive says what it waited for")
  func receiveByExtractorWithNothingRunning() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.receive(\.refreshedUser)
    } matching: { issue in
      message(of: issue) == """
        Expected to receive an action of the expected case (with a String), but none was \
        received and no effects are running.
        """
    }
  }

  // MARK: - Skipping effects

  @Test("skipInFlightEffects cancels the running effects, so the test can finish")
  func skipInFlightEffects() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.startTicking) { $0.isTicking = true }
    await store.skipInFlightEffects()
    await store.finish()
  }

  @Test("skipInFlightEffects with nothing running fails")
  func skipInFlightEffectsWithNothingRunning() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await withKnownIssue {
      await store.skipInFlightEffects()
    } matching: { issue in
      message(of: issue) == "There were no in-flight effects to skip."
    }
    await store.skipInFlightEffects(strict: false)
  }

  // MARK: - Finishing a task

  @Test("StoreTask.finish(timeout:) returns once the action's effects are done")
  func storeTaskFinishes() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    // NB: the bound only keeps a broken finish from hanging the run: generous, so a loaded
    // machine (the effect's task waits for a thread of the cooperative pool) never trips it.
    await store.send(.refreshTapped) { $0.isRefreshing = true }.finish(timeout: .seconds(120))
    await store.receive(.refreshed("alice")) {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.finish()
  }

  @Test("StoreTask.finish(timeout:) fails when an effect keeps running, naming what started it")
  func storeTaskTimesOut() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    let task = await store.send(.startTicking) { $0.isTicking = true }

    await withKnownIssue {
      await task.finish(timeout: .milliseconds(10))
    } matching: { issue in
      message(of: issue) == """
        The task did not finish within 0.01 seconds: 1 effect(s) still running. Started by:

          Desk.Action.startTicking
        """
    }
    await store.send(.cancelTicking) { $0.isTicking = false }
    await store.finish()
  }

  @Test("StoreTask.finish(timeout:) also works for a live Store's task")
  func liveStoreTaskTimesOut() async {
    let store = Store(initialState: Desk.State()) { Desk() }
    let task = store.send(.startTicking)

    await withKnownIssue {
      await task.finish(timeout: .milliseconds(10))
    } matching: { issue in
      message(of: issue).hasSuffix("Started by:\n\n  startTicking")
    }
    task.cancel()
  }

  // MARK: - Exhaustivity for a block

  @Test("withExhaustivity(.off) checks only what the block asserts, then exhaustivity resumes")
  func withExhaustivityOff() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.withExhaustivity(.off) {
      await store.send(.editor(.textChanged("Hi")))
      await store.send(.refreshTapped).finish()
    }
    // The block's unasserted change and received action were accepted when it ended.
    #expect(store.exhaustivity == .on)
    await store.send(.editor(.textChanged("Hello"))) { $0.editor.text = "Hello" }
    await store.finish()
  }

  @Test("After withExhaustivity(.off), an unasserted change fails again")
  func exhaustivityResumesAfterTheBlock() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    await store.withExhaustivity(.off) {
      await store.send(.editor(.textChanged("Hi")))
    }

    await withKnownIssue {
      await store.send(.editor(.textChanged("Hello")))
    } matching: { issue in
      message(of: issue).hasPrefix("State was not expected to change, but a change occurred:")
        && message(of: issue).contains("\u{2212}     text: \"Hi\",")
    }
  }
}
