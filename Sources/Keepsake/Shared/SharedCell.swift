import Synchronization

/// What copies of one ``Shared`` (or ``SharedReader``) share so that pointing one of them at
/// another key (`$user = Shared(...)`, `try await $user.load(key)`) is seen by every copy, as
/// swift-sharing users expect.
///
/// A `Shared` made from a key or a value gets a cell; its copies share it. Until the first
/// rebinding the cell costs its `Shared` one relaxed atomic load per access (the flag): the
/// `Shared` keeps using its own target. After one, every access reads the cell's target under
/// its lock.
///
/// NB: projections (`$settings.theme`) get no cell, so making one allocates nothing; a
/// projection assigned another `Shared` changes that variable only (its copies keep the part),
/// and ``Shared/load(_:)`` on one throws ``SharedRebindingError``.
@usableFromInline
final class SharedCell<Value: Sendable>: Sendable {
  private struct State {
    var target: SharedTarget<Value>?
    var nextListener = 0
    var listeners: [Int: @Sendable () -> Void] = [:]
  }

  /// Set once the cell was rebound; from then on its target is the one to use.
  @usableFromInline let isRebound = Atomic<Bool>(false)
  private let state = Mutex(State())

  @usableFromInline init() {}

  /// A cell already pointing at `target`.
  init(reboundTo target: SharedTarget<Value>) {
    state.withLock { $0.target = target }
    isRebound.store(true, ordering: .releasing)
  }

  /// The target the copies of the `Shared` use now, or `fallback` (the `Shared`'s own) before
  /// any rebinding.
  @usableFromInline
  func target(or fallback: SharedTarget<Value>) -> SharedTarget<Value> {
    state.withLock { $0.target } ?? fallback
  }

  /// Points every copy at `target`, then tells the listeners (outside the lock: a listener
  /// reads the value through the cell).
  func rebind(to target: SharedTarget<Value>) {
    let listeners = state.withLock { state in
      state.target = target
      return Array(state.listeners.values)
    }
    isRebound.store(true, ordering: .releasing)
    for listener in listeners { listener() }
  }

  /// Calls `onRebind` after every rebinding, on the rebinding thread, until the subscription is
  /// cancelled.
  func observeRebinding(_ onRebind: @escaping @Sendable () -> Void) -> StorageSubscription {
    let id = state.withLock { state in
      defer { state.nextListener += 1 }
      state.listeners[state.nextListener] = onRebind
      return state.nextListener
    }
    return StorageSubscription { [weak self] in
      _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
    }
  }
}
