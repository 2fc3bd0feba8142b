import Foundation
import Keepsake

/// Every lane and timer of every simulated process, on one virtual clock: nothing runs until
/// the simulation runs it, one turn at a time, in the order its schedule says.
///
/// NB: `@unchecked Sendable`, like every part of a simulation: one schedule runs on one thread,
/// and the library reaches this only from that thread (through the lanes, timers and watchers
/// the simulation itself runs).
final class SimulatedClockwork: @unchecked Sendable {
  private struct Timer {
    var deadline: Duration
    var order: Int
    var lane: SimulatedLane
    var work: @Sendable () -> Void
  }

  /// The virtual time now.
  private(set) var now: Duration = .zero
  private var timers: [Timer] = []
  private var nextOrder = 0
  /// The lane whose work runs now, if any.
  private(set) var current: SimulatedLane?

  func schedule(
    after delay: Duration, on lane: SimulatedLane, _ work: @escaping @Sendable () -> Void
  ) {
    timers.append(Timer(deadline: now + delay, order: nextOrder, lane: lane, work: work))
    nextOrder += 1
  }

  /// Moves the clock forward; timers that come due join their lanes' queues, in deadline order.
  func advance(by duration: Duration) {
    now += duration
    guard timers.contains(where: { $0.deadline <= now }) else { return }
    let due = timers.filter { $0.deadline <= now }.sorted {
      ($0.deadline, $0.order) < ($1.deadline, $1.order)
    }
    timers.removeAll { $0.deadline <= now }
    for timer in due { timer.lane.async(timer.work) }
  }

  /// Moves the clock to the next timer's deadline; `false` when no timer is armed.
  func advanceToNextTimer() -> Bool {
    guard let next = timers.map(\.deadline).min() else { return false }
    advance(by: max(.zero, next - now))
    return true
  }

  var hasTimers: Bool { !timers.isEmpty }

  /// Whether a timer is armed on `lane` (a coalesced save, a lock retry, a grace).
  func hasTimers(on lane: SimulatedLane) -> Bool { timers.contains { $0.lane === lane } }

  /// Runs the next piece of work queued on `lane`, as the lane; `false` when there was none.
  @discardableResult
  func runNext(on lane: SimulatedLane) -> Bool {
    guard let work = lane.takeNext() else { return false }
    run(work, on: lane)
    return true
  }

  /// Runs `work` as `lane`, now (a lane's `sync`).
  func run(_ work: () -> Void, on lane: SimulatedLane) {
    let outer = current
    current = lane
    work()
    current = outer
  }

  /// Forgets the timers of a process that died.
  func discardTimers(of owner: SimulatedProcess) {
    timers.removeAll { $0.lane.owner === owner }
  }
}

/// One reference's lane in a simulated process: a queue of work the simulation runs one piece
/// at a time, each step of a job in a turn of its own (`runsJobsInOneTurn` is false).
final class SimulatedLane: PersistenceLane, @unchecked Sendable {
  let clockwork: SimulatedClockwork
  /// The process incarnation the lane belongs to: a dead one's work is dropped.
  let owner: SimulatedProcess
  private var queue: [@Sendable () -> Void] = []
  private var head = 0

  init(clockwork: SimulatedClockwork, owner: SimulatedProcess) {
    self.clockwork = clockwork
    self.owner = owner
  }

  var hasWork: Bool { head < queue.count }

  func takeNext() -> (@Sendable () -> Void)? {
    guard owner.isAlive, head < queue.count else { return nil }
    let work = queue[head]
    head += 1
    if head == queue.count {
      queue.removeAll(keepingCapacity: true)
      head = 0
    }
    return work
  }

  /// Drops everything queued: the process died.
  func discard() {
    queue.removeAll()
    head = 0
  }

  func async(_ work: @escaping @Sendable () -> Void) {
    guard owner.isAlive else { return }
    queue.append(work)
  }

  func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
    guard owner.isAlive else { return }
    clockwork.schedule(after: delay, on: self, work)
  }

  func sync(_ work: () -> Void) { clockwork.run(work, on: self) }

  var isCurrent: Bool { clockwork.current === self }
  var runsJobsInOneTurn: Bool { false }
}

/// The scheduler of one simulated process: its references' lanes join the simulation's one
/// clockwork, and a busy lock comes back to the machine (`lockBusy`), to be asked for again on
/// the virtual clock, never waited for on the simulation's one thread.
struct SimulatedScheduler: PersistenceScheduler {
  let clockwork: SimulatedClockwork
  let owner: SimulatedProcess

  func makeLane(for id: SharedKeyID) -> any PersistenceLane {
    let lane = SimulatedLane(clockwork: clockwork, owner: owner)
    owner.adopt(lane)
    return lane
  }

  func now() -> Duration { clockwork.now }
  var asksLocksWithoutWaiting: Bool { true }
}
