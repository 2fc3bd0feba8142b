import Synchronization

/// A clock that only moves when a test advances it, so delay plans cost no real time.
///
/// Give it to a ``FaultInjector`` and drive it from the test:
///
/// ```swift
/// let clock = ManualClock()
/// let faults = FaultInjector<Method>(clock: clock)
/// faults[.fetchPage] = [.delay(.seconds(3))]
/// // start the call, then:
/// var started = clock.sleepsStarted.makeAsyncIterator()
/// _ = await started.next()  // the call is now held by the delay
/// clock.advance(by: .seconds(3))
/// ```
public final class ManualClock: Clock, Sendable {
  /// A point in manual time: the time since the clock started.
  public struct Instant: InstantProtocol {
    /// The time since the clock started.
    public var offset: Duration

    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private struct Sleeper {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Int: Sleeper] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())
  private let started: AsyncStream<Duration>.Continuation

  /// Yields each sleep's deadline, as time since the clock's start, once the
  /// sleep is waiting: a test learns that a call is held by a delay, and for
  /// how long, without guessing how long that takes.
  public let sleepsStarted: AsyncStream<Duration>

  /// A clock at its start, with no sleeps.
  public init() {
    (sleepsStarted, started) = AsyncStream.makeStream()
  }

  /// The current manual time.
  public var now: Instant { state.withLock { $0.now } }

  /// Manual time has no resolution limit.
  public var minimumResolution: Duration { .zero }

  /// How many sleeps are waiting.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Waits until `advance(by:)` reaches `deadline`; throws `CancellationError` when cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let immediate: Result<Void, any Error>? = state.withLock { state in
          if Task.isCancelled { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let immediate {
          continuation.resume(with: immediate)
        } else {
          started.yield(deadline.offset)
        }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Waits until a sleep has started waiting, and returns its deadline (time since the start).
  @discardableResult
  public func waitForSleep() async -> Duration? {
    var iterator = sleepsStarted.makeAsyncIterator()
    return await iterator.next()
  }

  /// Moves time forward and wakes every sleep whose deadline has come.
  public func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
      for id in due.keys { state.sleepers[id] = nil }
      return due.values.map(\.continuation)
    }
    for continuation in due { continuation.resume() }
  }
}
