import Synchronization

/// A lookup of something that may appear while the process runs, such as a test library that a
/// test bundle loads after its host app started: a miss is retried later, a find is kept for good.
///
/// A miss is retried only once the process has loaded code since the last miss, when the
/// platform tells (`generation`: a number that changes when the process loads code, `nil` where
/// the platform does not tell, which retries every time). A test bundle that arrives is loaded
/// code, so a retry can only succeed after the number changed. A found value is read with one
/// atomic load.
package final class RetryingLookup<Value: Sendable>: Sendable {
  private final class Found: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
  }

  private let lookup: @Sendable () -> Value?
  private let generation: @Sendable () -> UInt64?
  private let found = AtomicLazyReference<Found>()
  /// The generation of the last miss; `UInt64.max` before the first one.
  private let lastMiss = Atomic<UInt64>(.max)

  /// A lookup that calls `lookup` until it finds a value.
  ///
  /// - Parameters:
  ///   - generation: A number that changes whenever the process loads code, or `nil` when the
  ///     platform does not tell (then every miss is retried).
  ///   - lookup: Finds the value, or `nil` when it is not there (yet).
  package init(
    generation: @escaping @Sendable () -> UInt64?,
    lookup: @escaping @Sendable () -> Value?
  ) {
    self.generation = generation
    self.lookup = lookup
  }

  /// The value, once found; looks again when the process loaded code since the last miss.
  package var value: Value? {
    if let found = found.load() { return found.value }
    // NB: the generation is read before the lookup, so code loaded while it runs leaves the next
    // call a different number to retry on.
    let now = generation()
    if let now, lastMiss.load(ordering: .relaxed) == now { return nil }
    guard let value = lookup() else {
      if let now { lastMiss.store(now, ordering: .relaxed) }
      return nil
    }
    return found.storeIfNil(Found(value)).value
  }
}
