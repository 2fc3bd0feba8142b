import Foundation
import Synchronization

extension Shared {
  /// The current value first, then the value after each change, for as long as the sequence is
  /// iterated.
  ///
  /// Nonisolated.
  ///
  /// ```swift
  /// for await drafts in $drafts.values { render(drafts) }
  /// ```
  ///
  /// Changes from any thread, another reference, another process (through the file watcher) or
  /// a merge are delivered. Values are buffered, newest last: a slow consumer sees every one in
  /// order. When this `Shared` (or a copy of it) is pointed at another key, the sequence
  /// delivers the new key's value and from then on its changes, not the old key's, as
  /// swift-sharing's publisher does. Ending the iteration (or cancelling its task) stops the
  /// subscription.
  public var values: AsyncStream<Value> {
    let shared = self
    return AsyncStream { continuation in
      let changes = FollowedChanges()
      let follow: @Sendable () -> Void = {
        changes.follow(shared.root) { continuation.yield(shared.wrappedValue) }
      }
      // NB: subscribe first, then yield the current value: a change (or a rebinding) in between
      // is delivered, perhaps as a repeat of the same value, never missed.
      let rebinding = shared.cell?.observeRebinding {
        follow()
        continuation.yield(shared.wrappedValue)
      }
      follow()
      continuation.yield(shared.wrappedValue)
      continuation.onTermination = { _ in
        rebinding?.cancel()
        changes.stop()
      }
    }
  }
}

/// The subscription of a ``Shared/values`` stream to its current key's changes, moved to the
/// new key when the `Shared` is pointed elsewhere.
private final class FollowedChanges: Sendable {
  private struct State {
    var root: ObjectIdentifier?
    var subscription: StorageSubscription?
    var stopped = false
  }

  private let state = Mutex(State())

  /// Subscribes to `root`'s changes instead of the previous root's, unless it already is.
  func follow(_ root: any SharedRoot, onChange: @escaping @Sendable () -> Void) {
    let id = ObjectIdentifier(root)
    guard state.withLock({ !$0.stopped && $0.root != id }) else { return }
    let subscription = root.observeChanges(onChange)
    let replaced = state.withLock { state -> StorageSubscription? in
      guard !state.stopped else { return subscription }
      defer {
        state.root = id
        state.subscription = subscription
      }
      return state.subscription
    }
    replaced?.cancel()
  }

  func stop() {
    let subscription = state.withLock { state -> StorageSubscription? in
      state.stopped = true
      defer { state.subscription = nil }
      return state.subscription
    }
    subscription?.cancel()
  }
}
