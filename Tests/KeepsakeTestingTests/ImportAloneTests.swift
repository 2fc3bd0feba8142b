import KeepsakeTesting
import Testing

// NB: this file imports `KeepsakeTesting` alone, as a new test file would: everything below must
// compile without `import Keepsake`, `import KeepsakeStore` or `import FaultInjection`.

private struct Counter: Reducer {
  struct State: Equatable {
    @Shared(.inMemory("import-alone-count")) var count = 0
  }

  enum Action: Equatable, Sendable { case increment }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.$count.withLock { $0 += 1 }
    return .none
  }
}

private enum Call: Hashable, Sendable { case fetch }

@MainActor
@Suite("Importing KeepsakeTesting alone")
struct ImportAloneTests {
  @Test("A test that imports KeepsakeTesting alone can use keys, reducers, TestStore and faults")
  func everythingATestNeeds() async throws {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.increment) { $0.$count.withLock { $0 = 1 } }
    await store.finish()

    let faults = FaultInjector<Call>()
    faults.failingMethods = [.fetch]
    faults.injectedError = CancellationError()
    #expect(throws: CancellationError.self) { try faults.throwIfFailing(.fetch) }
    #expect(faults.callCount(.fetch) == 1)
  }
}
