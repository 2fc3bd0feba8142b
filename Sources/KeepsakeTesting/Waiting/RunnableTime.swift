/// Time in which a task could have run: what a test's timeout counts.
///
/// A timeout turns a change that never comes into a failure. Counted on the wall clock, it also
/// fails a change that was coming when the machine ran nothing for a while: under load, the two
/// threads of a small machine's concurrency pool can both be held by other tests' blocking work
/// for seconds, and neither the awaited effect nor the timer runs. So a wait sleeps in short
/// slices, and a slice that took far longer than asked (the pool, not the code, was slow) counts
/// only as a little more than its length: the effect was as starved as the timer.
struct RunnableTime {
  /// How long to count before the time is up.
  let total: Duration
  /// How long each sleep asks for.
  let slice: Duration
  /// The most one slice counts, however long it took.
  let mostPerSlice: Duration
  /// What was counted so far.
  private(set) var counted = Duration.zero

  init(_ total: Duration) {
    self.total = total
    slice = max(min(total / 10, .milliseconds(50)), .milliseconds(1))
    mostPerSlice = slice * 2
  }

  /// Whether all of `total` was counted.
  var isUp: Bool { counted >= total }

  /// Counts a slice that took `elapsed`, at most ``mostPerSlice``.
  mutating func count(_ elapsed: Duration) {
    counted += min(max(elapsed, .zero), mostPerSlice)
  }

  /// Sleeps until `total` of runnable time was counted, or the task is cancelled.
  static func sleep(for total: Duration) async {
    var time = RunnableTime(total)
    let clock = ContinuousClock()
    while !time.isUp, !Task.isCancelled {
      let start = clock.now
      do { try await Task.sleep(for: time.slice) } catch { return }
      time.count(clock.now - start)
    }
  }
}
