import Dispatch
import Foundation
import Synchronization

/// Where a storage context runs its references' persistence, and the clock its timers read (the
/// coalescing interval, a busy lock's retries and its timeout).
///
/// Live contexts run each reference's work on a Dispatch queue of its own, on real time. A test
/// moves a ``StorageClock/manual()`` clock by hand, and the `simulation` campaign of
/// `keepsake-stress` runs every simulated process's lanes from one seeded scheduler, on a virtual
/// clock, one step at a time.
package protocol PersistenceScheduler: Sendable {
  /// A serial lane for the work of the reference of key `id`.
  func makeLane(for id: SharedKeyID) -> any PersistenceLane
  /// The time now on this scheduler's clock, from an arbitrary origin.
  func now() -> Duration
  /// Whether a file's lock is asked for without waiting: a busy lock then comes back to the
  /// machine, which asks again on this clock until the lock timeout. Otherwise the file system
  /// waits for the lock itself.
  var asksLocksWithoutWaiting: Bool { get }
}

/// A serial queue of one reference's persistence work.
package protocol PersistenceLane: Sendable {
  /// Runs `work` after what is queued.
  func async(_ work: @escaping @Sendable () -> Void)
  /// Runs `work` on the lane after `delay` on the scheduler's clock.
  func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void)
  /// Runs `work` on the calling thread once what runs on the lane now is done, with nothing else
  /// running on the lane meanwhile: for the exit flush, which cannot wait asynchronously.
  func sync(_ work: () -> Void)
  /// Whether the caller is running on this lane.
  var isCurrent: Bool { get }
  /// Whether a job's steps run one after another in one turn of the lane (live), or each in a
  /// turn of its own so that other work can run between them (a simulation).
  var runsJobsInOneTurn: Bool { get }
}

/// The live scheduler: a Dispatch queue per reference, real time.
struct DispatchScheduler: PersistenceScheduler {
  func makeLane(for id: SharedKeyID) -> any PersistenceLane { DispatchLane(for: id) }
  func now() -> Duration { .nanoseconds(Int64(bitPattern: DispatchTime.now().uptimeNanoseconds)) }
  var asksLocksWithoutWaiting: Bool { false }
}

/// A lane on a Dispatch queue, made when it is first used: references that never save, reload
/// or watch (in-memory values) never make one.
final class DispatchLane: PersistenceLane {
  /// The key the lane works for, named in the queue's label.
  private let id: SharedKeyID?
  private let made = Mutex<DispatchQueue?>(nil)
  private let timers: TimerSource?

  init(for id: SharedKeyID?, timers: TimerSource? = nil) {
    self.id = id
    self.timers = timers
  }

  var queue: DispatchQueue {
    made.withLock { made in
      if let made { return made }
      // NB: the label is made with the queue, not with the reference: string work a key that
      // never saves would pay on creation.
      let queue = DispatchQueue(label: id.map { "keepsake.shared.\($0)" } ?? "keepsake.shared")
      queue.setSpecific(key: LaneKey.key, value: ObjectIdentifier(self))
      made = queue
      return queue
    }
  }

  func async(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

  func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
    if let timers {
      timers.schedule(after: delay) { [self] in queue.async(execute: work) }
    } else {
      queue.asyncAfter(deadline: .now() + delay.timeInterval, execute: work)
    }
  }

  func sync(_ work: () -> Void) {
    if isCurrent { return work() }
    queue.sync(execute: work)
  }

  var isCurrent: Bool { DispatchQueue.getSpecific(key: LaneKey.key) == ObjectIdentifier(self) }
  var runsJobsInOneTurn: Bool { true }
}

/// The dispatch-specific key that marks a lane's queue.
private enum LaneKey {
  #if canImport(Darwin)
    // NB: an immutable token compared by identity; not marked Sendable in every Dispatch.
    nonisolated(unsafe) static let key = DispatchSpecificKey<ObjectIdentifier>()
  #else
    static let key = DispatchSpecificKey<ObjectIdentifier>()
  #endif
}

/// Timers that fire when a manual clock is moved past them.
final class TimerSource: Sendable {
  private struct Pending {
    var deadline: Duration
    var order: UInt64
    var fire: @Sendable () -> Void
  }

  private struct State {
    var now: Duration = .zero
    var next: UInt64 = 0
    var pending: [Pending] = []
  }

  private let state = Mutex(State())

  var now: Duration { state.withLock { $0.now } }

  func schedule(after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
    state.withLock { state in
      state.pending.append(Pending(deadline: state.now + delay, order: state.next, fire: fire))
      state.next += 1
    }
  }

  /// Moves the clock to `deadline`, firing every timer due by then in deadline order (timers
  /// armed by what fires run too, if they are due).
  func advance(to deadline: Duration) {
    while true {
      let due = state.withLock { state -> Pending? in
        let sorted = state.pending.enumerated().filter { $0.element.deadline <= deadline }
          .min { ($0.element.deadline, $0.element.order) < ($1.element.deadline, $1.element.order) }
        guard let (index, timer) = sorted else {
          state.now = max(state.now, deadline)
          return nil
        }
        state.pending.remove(at: index)
        state.now = max(state.now, timer.deadline)
        return timer
      }
      guard let due else { return }
      due.fire()
    }
  }
}

/// A scheduler whose clock moves only when a test moves it: Dispatch lanes, manual time.
final class ManualScheduler: PersistenceScheduler {
  let timers = TimerSource()
  let lanes = Mutex<[WeakLane]>([])

  struct WeakLane {
    weak var lane: DispatchLane?
  }

  func makeLane(for id: SharedKeyID) -> any PersistenceLane {
    let lane = DispatchLane(for: id, timers: timers)
    lanes.withLock { lanes in
      lanes.removeAll { $0.lane == nil }
      lanes.append(WeakLane(lane: lane))
    }
    return lane
  }

  func now() -> Duration { timers.now }
  var asksLocksWithoutWaiting: Bool { false }

  /// Waits until every lane has done what was queued on it so far.
  func settle() async {
    // NB: work on one lane can queue work on another (a write that another context's watcher
    // sees): a few passes let such chains finish.
    for _ in 0..<3 {
      let live = lanes.withLock { $0.compactMap(\.lane) }
      for lane in live {
        await withCheckedContinuation { continuation in
          lane.async { continuation.resume() }
        }
      }
    }
  }
}
