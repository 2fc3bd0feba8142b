import Foundation
import Keepsake
import KeepsakeStore
import Observation
import Synchronization
import Testing

@MainActor
@Suite("Store")
struct StoreTests {
  @Test("Sending an action reduces it and runs its effect")
  func sendRunsEffects() async {
    let store = Store(initialState: Desk.State()) { Desk() }

    await store.send(.refreshTapped).finish()

    #expect(store.state.isRefreshing == false)
    #expect(store.state.session == "alice")
  }

  @Test("A scoped child reducer changes its part of the parent's state")
  func scopeRunsChild() {
    let store = Store(initialState: Desk.State()) { Desk() }

    store.send(.editor(.textChanged("Hi")))
    store.send(.editor(.saveTapped(UUID(1))))

    #expect(store.state.editor.text == "")
    #expect(store.state.drafts == [Draft(id: UUID(1), text: "Hi")])
  }

  @Test("Effect.send is handled before send returns")
  func immediateSend() {
    struct Relay: Reducer {
      func reduce(into state: inout [String], action: String) -> Effect<String> {
        state.append(action)
        return action == "first" ? .send("second") : .none
      }
    }
    let store = Store(initialState: []) { Relay() }
    store.send("first")
    #expect(store.state == ["first", "second"])
  }

  @Test("The store's state is observable")
  func observation() {
    let store = Store(initialState: Desk.State()) { Desk() }
    let changed = Changed()
    withObservationTracking {
      _ = store.state.editor.text
    } onChange: {
      changed.set()
    }
    store.send(.editor(.textChanged("Hi")))
    #expect(changed.value)
  }
}

/// A flag set from an observation callback.
private final class Changed: Sendable {
  private let flag = Mutex(false)
  var value: Bool { flag.withLock { $0 } }
  func set() { flag.withLock { $0 = true } }
}
