import Foundation

extension Shared {
  /// The current value first, then the value after each change, for as long as the sequence is
  /// iterated.
  ///
  /// ```swift
  /// for await drafts in $drafts.values { render(drafts) }
  /// ```
  ///
  /// Changes from any thread, another reference, another process (through the file watcher) or
  /// a merge are delivered. Values are buffered, newest last: a slow consumer sees every one in
  /// order. Ending the iteration (or cancelling its task) stops the subscription.
  public var values: AsyncStream<Value> {
    let shared = self
    return AsyncStream { continuation in
      // NB: subscribe first, then yield the current value: a change in between is delivered
      // (perhaps as a repeat of the same value), never missed.
      let subscription = shared.root.observeChanges { continuation.yield(shared.wrappedValue) }
      continuation.yield(shared.wrappedValue)
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }
}

#if canImport(SwiftUI)
  import SwiftUI

  extension Binding {
    /// A binding that reads a shared value and writes it with `withLock`.
    public init(_ shared: Shared<Value>) where Value: Sendable {
      self.init(get: { shared.wrappedValue }, set: { value in shared.withLock { $0 = value } })
    }
  }
#endif
