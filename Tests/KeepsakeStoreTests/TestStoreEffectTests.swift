import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Testing

@MainActor
@Suite("TestStore: effects")
struct TestStoreEffectTests {
  @Test("Actions an effect sends are received and asserted")
  func runSendsActions() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }
    await store.receive(.refreshed("alice")) {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.finish()
  }

  @Test("A predicate receives an action")
  func receiveWithPredicate() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }
    let isRefreshed: (Desk.Action) -> Bool = {
      if case .refreshed = $0 { true } else { false }
    }
    await store.receive(isRefreshed) {
      $0.isRefreshing = false
      $0.$session.withLock { $0 = "alice" }
    }
    await store.finish()
  }

  @Test("An effect cancelled by its id lets the test finish")
  func cancellationById() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.startTicking) { $0.isTicking = true }
    await store.send(.cancelTicking) { $0.isTicking = false }
    await store.finish()
  }

  @Test("Cancelling the task a send returned stops its effect")
  func cancellingTheReturnedTask() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    let task = await store.send(.startTicking) { $0.isTicking = true }
    task.cancel()
    await store.finish()
  }

  @Test("Received actions can be skipped")
  func skipReceivedActions() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped) { $0.isRefreshing = true }.finish()
    await store.skipReceivedActions()
    #expect(store.state.session == "alice")
    await store.finish()
  }

  @Test("Non-exhaustive mode checks only what the test asserts")
  func nonExhaustive() async {
    let store = TestStore(initialState: Desk.State()) { Desk() }
    store.exhaustivity = .off

    await store.send(.editor(.textChanged("Hi")))
    await store.send(.editor(.saveTapped(UUID(1)))) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(1), text: "Hi")] }
    }
    await store.send(.refreshTapped)
    await store.receive(.refreshed("alice")) { $0.$session.withLock { $0 = "alice" } }
    await store.send(.startTicking)
    await store.finish(timeout: .milliseconds(10))
  }
}
