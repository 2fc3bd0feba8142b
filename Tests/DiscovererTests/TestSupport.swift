import DiscovererFeature
import FaultInjection
import Foundation
import Synchronization

/// The file the tests cache the feed in.
///
/// Every test has its own in-memory storage, so tests sharing this path cannot see each
/// other's feed.
let feedURL = URL(filePath: "/discoverer-tests/recently-played.json")

/// A mock serving the bundled catalogue, whose delays wait on `clock` when one is given.
@MainActor
func makeService(clock: ManualClock? = nil) throws -> MockMusicService {
  let faults = clock.map { FaultInjector<MockMethod>(clock: $0) } ?? FaultInjector<MockMethod>()
  return try MockMusicService(faults: faults)
}

extension FaultInjector where Method == MockMethod {
  /// What the seam did with each call to `method`, in order.
  func outcomes(_ method: MockMethod) -> [FaultCall<MockMethod>.Outcome] {
    calls(to: method).map(\.outcome)
  }
}

/// A clock that only moves when a test advances it, so latency costs no real time.
final class ManualClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
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
  private let started: AsyncStream<Void>.Continuation
  /// Yields once each time a sleep starts waiting, so a test knows a call is held by a delay.
  let sleepsStarted: AsyncStream<Void>

  init() {
    (sleepsStarted, started) = AsyncStream.makeStream()
  }

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

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
          started.yield()
        }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Waits until a sleep has started.
  func waitForSleep() async {
    var iterator = sleepsStarted.makeAsyncIterator()
    _ = await iterator.next()
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
