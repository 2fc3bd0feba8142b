import Foundation
import Keepsake
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the time of a child's transactions went: how long it held the file's lock, and how much
/// of that the write protocol's own system calls took (a new temporary file, its write and
/// flush, the rename, the folder's flush).
///
/// Every process of the transactions part takes turns on one lock, so the time inside it is
/// what sets the rate: the part's rate is at most one over the time in the lock per
/// transaction, and the protocol's calls are the part of it no library writing whole files by
/// the rule "Writes are atomic and durable" can skip. Measured in every run, beside SQLite's whole transaction, it
/// shows how much of the gap is the protocol and how much the library.
public struct LockTiming: Sendable, Equatable {
  /// Times the lock was taken and released.
  public var holds = 0
  /// Time spent holding it, in nanoseconds.
  public var heldNanoseconds: Int64 = 0
  /// Holds that wrote a file with the protocol.
  public var writes = 0
  /// Time of the protocol's calls in those holds, from the temporary file's creation to the
  /// last call before the lock's release (the folder's flush), in nanoseconds.
  public var protocolNanoseconds: Int64 = 0
  /// Processor time the child used for its transactions (user and system, all its threads,
  /// from the start to its last transaction), in nanoseconds.
  ///
  /// With every process on the same cores, what the others use while one holds the lock can
  /// delay the holder: this is the whole work of a transaction, where the rest is its latency.
  public var processorNanoseconds: Int64 = 0

  /// No time yet.
  public init() {}

  /// The line a child prints: `timing <holds> <held ns> <writes> <protocol ns> <processor ns>`.
  public var line: String {
    "timing \(holds) \(heldNanoseconds) \(writes) \(protocolNanoseconds) \(processorNanoseconds)"
  }

  /// The timing a child's ``line`` gives, or `nil` when `line` is not one.
  public init?(line: String) {
    let words = line.split(separator: " ")
    guard words.count == 6, words[0] == "timing", let holds = Int(words[1]),
      let held = Int64(words[2]), let writes = Int(words[3]), let calls = Int64(words[4]),
      let processor = Int64(words[5]), holds >= 0, held >= 0, writes >= 0, calls >= 0,
      processor >= 0
    else { return nil }
    self.holds = holds
    self.heldNanoseconds = held
    self.writes = writes
    self.protocolNanoseconds = calls
    self.processorNanoseconds = processor
  }

  /// The processor time this process has used so far (user and system), in nanoseconds.
  public static func processorTime() -> Int64 {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  /// The processor time per hold, in seconds (0 without holds).
  public var processorSecondsPerHold: Double {
    holds > 0 ? Double(processorNanoseconds) / 1e9 / Double(holds) : 0
  }

  /// The time in the lock per hold, in seconds (0 without holds).
  public var secondsPerHold: Double {
    holds > 0 ? Double(heldNanoseconds) / 1e9 / Double(holds) : 0
  }

  /// The protocol's calls per write, in seconds (0 without writes).
  public var protocolSecondsPerWrite: Double {
    writes > 0 ? Double(protocolNanoseconds) / 1e9 / Double(writes) : 0
  }

  /// The times of `self` and `other` together (of two children, say).
  public static func + (lhs: LockTiming, rhs: LockTiming) -> LockTiming {
    var sum = lhs
    sum.holds += rhs.holds
    sum.heldNanoseconds += rhs.heldNanoseconds
    sum.writes += rhs.writes
    sum.protocolNanoseconds += rhs.protocolNanoseconds
    sum.processorNanoseconds += rhs.processorNanoseconds
    return sum
  }
}

/// The real system calls, timed into a ``LockTiming``: a ``LocalFileSystem`` made with ``calls``
/// (a Keepsake child's) or code calling them itself (a by-hand child) is measured the same way.
///
/// NB: a hold begins when an exclusive `flock` succeeds and ends at the `flock` that releases it;
/// the write in it begins at the `open` that creates the temporary file (`O_CREAT | O_EXCL`) and
/// ends with the last call before the release. Two clock readings per call, against the
/// microseconds of each call.
public final class TimedSystemCalls: Sendable {
  private struct State {
    var timing = LockTiming()
    /// When each held lock was taken, by descriptor.
    var heldSince: [Int32: ContinuousClock.Instant] = [:]
    var writeStarted: ContinuousClock.Instant?
    var lastCallEnded: ContinuousClock.Instant?

    mutating func called(
      from start: ContinuousClock.Instant, to end: ContinuousClock.Instant, creates: Bool
    ) {
      guard !heldSince.isEmpty else { return }
      if creates && writeStarted == nil { writeStarted = start }
      lastCallEnded = end
    }

    mutating func locked(
      _ fd: Int32, _ operation: Int32, succeeded: Bool, at now: ContinuousClock.Instant
    ) {
      if operation & LOCK_UN != 0 {
        guard let since = heldSince.removeValue(forKey: fd) else { return }
        timing.holds += 1
        timing.heldNanoseconds += nanoseconds(since.duration(to: now))
        // NB: a write belongs to the outermost hold.
        guard heldSince.isEmpty else { return }
        if let started = writeStarted, let ended = lastCallEnded {
          timing.writes += 1
          timing.protocolNanoseconds += nanoseconds(started.duration(to: ended))
        }
        writeStarted = nil
        lastCallEnded = nil
      } else if operation & LOCK_EX != 0 && succeeded && heldSince[fd] == nil {
        heldSince[fd] = now
      }
    }

    private func nanoseconds(_ duration: Duration) -> Int64 {
      duration.components.seconds * 1_000_000_000
        + duration.components.attoseconds / 1_000_000_000
    }
  }

  /// The state, shared with the calls' closures.
  private final class Recorder: Sendable {
    let state = Mutex(State())
  }

  private let recorder = Recorder()

  /// The calls, forwarded to the real ones.
  package let calls: SystemCalls

  /// New timed calls, with nothing measured yet.
  public init() {
    let live = SystemCalls.live
    let recorder = self.recorder
    @Sendable func timed<R>(creates: Bool = false, _ call: () -> R) -> R {
      let start = ContinuousClock.now
      let result = call()
      let code = errno
      let end = ContinuousClock.now
      recorder.state.withLock { $0.called(from: start, to: end, creates: creates) }
      errno = code
      return result
    }
    calls = SystemCalls { call in
      switch call {
      case .flock(let fd, let operation):
        // NB: a release is timed before the call: the process it wakes may take the lock, and
        // the core, before this one reads the clock again.
        let before = ContinuousClock.now
        let result = live.perform(call)
        let code = errno
        let now = operation & LOCK_UN != 0 ? before : ContinuousClock.now
        recorder.state.withLock { $0.locked(fd, operation, succeeded: result == 0, at: now) }
        errno = code
        return result
      case .open(_, let flags, _):
        return timed(creates: flags & (O_CREAT | O_EXCL) == (O_CREAT | O_EXCL)) {
          live.perform(call)
        }
      default:
        return timed { live.perform(call) }
      }
    }
  }

  /// What was measured so far, with the processor time since `processorStart` (a reading of
  /// ``LockTiming/processorTime()``).
  public func timing(processorSince processorStart: Int64 = 0) -> LockTiming {
    var timing = recorder.state.withLock { $0.timing }
    if processorStart > 0 {
      timing.processorNanoseconds = LockTiming.processorTime() - processorStart
    }
    return timing
  }
}
