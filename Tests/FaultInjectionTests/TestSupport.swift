import FaultInjection
import Synchronization

/// The methods of an imaginary music-library service that the tests fake.
enum Endpoint: String, Hashable, Sendable, CaseIterable {
  case fetchRecentlyPlayed
  case fetchPage
  case sync
}

typealias Outcome = FaultCall<Endpoint>.Outcome

/// The outcome logged for a call that threw `fault`.
func threw(_ fault: InjectedFault) -> Outcome {
  .threw(fault.description)
}

extension FaultInjector where Method == Endpoint {
  /// Makes `count` synchronous calls to `method` and returns what the seam did with each.
  func outcomes(of method: Endpoint, count: Int) -> [Outcome] {
    for _ in 0..<count { try? throwIfFailing(method) }
    return calls(to: method).suffix(count).map(\.outcome)
  }
}

/// A clock that only moves when a test advances it, so delays cost no real time.
final class ManualClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    static func < (lhs: Instant, rhs: Instant) -> Bool {
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
  let sleepsStarted: AsyncStream<Duration>

  init() {
    (sleepsStarted, started) = AsyncStream.makeStream()
  }

  var now: Instant { state.withLock { $0.now } }

  var minimumResolution: Duration { .zero }

  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
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

  /// Moves time forward and wakes every sleep whose deadline has come.
  func advance(by duration: Duration) {
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
