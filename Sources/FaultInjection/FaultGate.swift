import Synchronization

/// A barrier that holds calls in flight until the test opens it.
///
/// A gate lets a test look at the state of the code under test *while* a call
/// is still running (a spinner shown, a button disabled, a second request
/// coalesced) without sleeping and hoping. Calls that reach a closed gate
/// suspend; ``waitUntilReached(count:)`` tells the test when they have arrived;
/// ``open()`` lets every parked call, and every later one, through.
///
/// ```swift
/// let gate = faults.gate(.fetchRecentlyPlayed)
/// let load = Task { try await model.load() }
/// try await gate.waitUntilReached()
/// #expect(model.isLoading)
/// gate.open()
/// try await load.value
/// ```
///
/// All members are thread-safe and callable from any isolation. A parked call
/// whose task is cancelled stops waiting and throws `CancellationError`.
public final class FaultGate: Sendable {
  private typealias Continuation = CheckedContinuation<Void, any Error>

  private struct State {
    var isOpen = false
    var arrivals = 0
    var nextTicket = 0
    var parked: [Int: Continuation] = [:]
    var watchers: [Int: (count: Int, continuation: Continuation)] = [:]

    mutating func ticket() -> Int {
      nextTicket += 1
      return nextTicket
    }

    mutating func removeWaiter(_ ticket: Int) -> Continuation? {
      parked.removeValue(forKey: ticket) ?? watchers.removeValue(forKey: ticket)?.continuation
    }

    mutating func satisfiedWatchers() -> [Continuation] {
      let ready = watchers.filter { $0.value.count <= arrivals }
      for ticket in ready.keys { watchers[ticket] = nil }
      return ready.values.map(\.continuation)
    }
  }

  private let state = Mutex(State())

  /// Creates a closed gate.
  public init() {}

  /// Whether the gate lets calls through without waiting.
  public var isOpen: Bool {
    state.withLock { $0.isOpen }
  }

  /// How many calls have reached the gate so far, parked or let through.
  public var arrivals: Int {
    state.withLock { $0.arrivals }
  }

  /// How many calls are parked at the gate right now.
  public var parkedCount: Int {
    state.withLock { $0.parked.count }
  }

  /// Releases every parked call and lets all later calls straight through.
  public func open() {
    let released = state.withLock { state in
      state.isOpen = true
      defer { state.parked = [:] }
      return Array(state.parked.values)
    }
    for continuation in released { continuation.resume() }
  }

  /// Suspends until at least `count` calls have reached the gate since it was made.
  ///
  /// - Throws: `CancellationError` if the waiting task is cancelled first.
  public func waitUntilReached(count: Int = 1) async throws {
    try await suspend { state, ticket, continuation in
      guard state.arrivals < count else { return (suspended: false, wake: []) }
      state.watchers[ticket] = (count, continuation)
      return (suspended: true, wake: [])
    }
  }

  /// Called by the injector: counts the arrival, then waits while the gate is closed.
  func pass() async throws {
    try await suspend { state, ticket, continuation in
      state.arrivals += 1
      let watchers = state.satisfiedWatchers()
      guard !state.isOpen else { return (suspended: false, wake: watchers) }
      // Parked before the watchers wake, so a test that resumes from
      // `waitUntilReached` always sees this call in `parkedCount`.
      state.parked[ticket] = continuation
      return (suspended: true, wake: watchers)
    }
  }

  /// Registers a continuation under the lock, or resumes it at once.
  ///
  /// `register` says whether it stored the continuation for someone else to
  /// resume, and which other waiters to wake; they are resumed after the lock
  /// is released so no continuation ever runs code while the lock is held.
  private func suspend(
    _ register:
      @escaping @Sendable (inout State, Int, Continuation) -> (
        suspended: Bool, wake: [Continuation]
      )
  ) async throws {
    let ticket = state.withLock { $0.ticket() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Continuation) in
        let (outcome, wake) = state.withLock {
          state -> (Result<Void, any Error>?, [Continuation]) in
          let registration = register(&state, ticket, continuation)
          guard registration.suspended else { return (.success(()), registration.wake) }
          // The cancellation flag is set before the handler below runs, and
          // both sides hold the lock, so a cancellation is either seen here or
          // finds the stored continuation: never lost in between.
          guard !Task.isCancelled else {
            _ = state.removeWaiter(ticket)
            return (.failure(CancellationError()), registration.wake)
          }
          return (nil, registration.wake)
        }
        for watcher in wake { watcher.resume() }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let waiter = state.withLock { $0.removeWaiter(ticket) }
      waiter?.resume(throwing: CancellationError())
    }
  }
}
