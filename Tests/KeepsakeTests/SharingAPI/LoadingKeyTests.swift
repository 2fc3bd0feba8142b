import Foundation
import KeepsakeTesting
import Synchronization
import Testing

/// A reader key whose loads all wait until the test opens its gate, then load the gate's value.
private struct GatedKey: SharedReaderKey {
  let name: String
  let gate: Gate

  var id: SharedKeyID { SharedKeyID(kind: "gated", name: name) }

  func load() async throws -> Int? { await gate.wait() }
}

/// Releases every waiter, now and later, with one value.
private final class Gate: Sendable {
  private struct State {
    var value: Int?
    var waiters: [CheckedContinuation<Int, Never>] = []
  }
  private let state = Mutex(State())

  func wait() async -> Int {
    await withCheckedContinuation { continuation in
      let value = state.withLock { state -> Int? in
        if let value = state.value { return value }
        state.waiters.append(continuation)
        return nil
      }
      if let value { continuation.resume(returning: value) }
    }
  }

  func open(_ value: Int) {
    let waiters = state.withLock { state in
      state.value = value
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: value) }
  }
}

/// A reader key that loads nothing itself: its subscription starts the load, says it is
/// loading, and yields what arrives.
private struct SubscribedKey: SharedReaderKey {
  let name: String
  let gate: Gate

  var id: SharedKeyID { SharedKeyID(kind: "subscribed", name: name) }

  func load() async throws -> Int? { nil }

  func subscribe(_ subscriber: SharedSubscriber<Int>) -> StorageSubscription? {
    let gate = gate
    let task = Task {
      subscriber.yieldLoading()
      subscriber.yield(await gate.wait())
    }
    return StorageSubscription { task.cancel() }
  }
}

@Suite("Loading keys, as swift-sharing's tests use them")
struct LoadingKeyTests {
  @Test("isLoading is true from the start of a reader's first load to its end")
  func isLoadingDuringTheFirstLoad() async {
    let gate = Gate()
    let reader = SharedReader(GatedKey(name: "first", gate: gate), default: 0)
    #expect(reader.isLoading)
    gate.open(42)
    #expect(await waitUntil { !reader.isLoading })
    #expect(reader.wrappedValue == 42)
  }

  @Test("load(key) of a key another reader is still loading delivers the loaded value")
  func loadOfALoadingKey() async throws {
    let gate = Gate()
    let key = GatedKey(name: "shared", gate: gate)
    let first = SharedReader(key, default: 0)
    #expect(first.isLoading)
    let second = SharedReader(GatedKey(name: "other", gate: Gate()), default: 0)
    async let loaded: Void = second.load(key)
    gate.open(42)
    try await loaded
    #expect(second.wrappedValue == 42)
    #expect(!second.isLoading)
    #expect(await waitUntil { first.wrappedValue == 42 && !first.isLoading })
  }

  @Test("A reader reassigned to a new loading key is loading, then shows its value")
  func reassigned() async {
    let firstGate = Gate()
    firstGate.open(42)
    @SharedReader(GatedKey(name: "a", gate: firstGate)) var value = 0
    let before = $value
    #expect(await waitUntil { before.wrappedValue == 42 })
    let gate = Gate()
    $value = SharedReader(GatedKey(name: "b", gate: gate), default: 0)
    #expect($value.isLoading)
    #expect(value == 0)
    gate.open(7)
    let after = $value
    #expect(await waitUntil { !after.isLoading })
    #expect(value == 7)
  }

  @Test("A subscriber's own load shows as isLoading until it yields a value")
  func subscriberLoad() async {
    let gate = Gate()
    let reader = SharedReader(SubscribedKey(name: "s", gate: gate), default: 0)
    #expect(await waitUntil { reader.isLoading })
    gate.open(5)
    #expect(await waitUntil { reader.wrappedValue == 5 })
    #expect(await waitUntil { !reader.isLoading })
  }
}
