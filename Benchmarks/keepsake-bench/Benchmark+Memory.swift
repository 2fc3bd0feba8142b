import DraftsFeature
import Foundation
import Keepsake
import Observation
import Synchronization

/// Scenarios of values in memory: never read (against a bare `Mutex`), and read, so observed
/// (against ``ObservableFloor``, the least work that takes part in Observation).
extension Benchmark {
  // MARK: - Never read

  func inMemoryMutation(_ count: Int) -> BenchmarkResult {
    let key = "counter-\(count)-\(UUID().uuidString)"
    let shared = StorageContext.withValue(Self.context()) { Shared(.inMemory(key), default: 0) }
    let mutex = Mutex(0)
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: { timed { for _ in 0..<count { shared.withLock { $0 += 1 } } } },
      baseline: { timed { for _ in 0..<count { mutex.withLock { $0 += 1 } } } })
    return BenchmarkResult(
      "in-memory-mutation", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(3.0))
  }

  func inMemoryAppend(_ count: Int) -> BenchmarkResult {
    let draft = SampleDrafts.make(1, seed: 3)[0]
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: {
        let key = "drafts-\(count)-\(UUID().uuidString)"
        let shared = StorageContext.withValue(Self.context()) {
          Shared(.inMemory(key), default: [Draft]())
        }
        return timed { for _ in 0..<count { shared.withLock { $0.append(draft) } } }
      },
      baseline: {
        let list = Mutex([Draft]())
        return timed { for _ in 0..<count { list.withLock { $0.append(draft) } } }
      })
    return BenchmarkResult(
      "in-memory-append", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(3.0))
  }

  /// `count` distinct `.inMemory` keys made and read, in a context of their own, against the least
  /// a hand-written store does for the same: a `[String: Int]` under a `Mutex`, looked up and
  /// filled on first use; then both let go of what they made.
  ///
  /// Figures are per key. The keys are kept while they are made, as an app keeps what it uses:
  /// a dropped reference parks its value in its context (see `ReferenceSlot`), which the second
  /// row measures against the store's own release.
  func inMemoryKeys(_ count: Int) -> [BenchmarkResult] {
    let names = (0..<count).map { "key-\($0)" }
    var sums = (keepsake: 0, baseline: 0)
    var drops = (keepsake: [Double](), baseline: [Double]())
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: {
        let context = Self.context()
        var kept: [Shared<Int>] = []
        kept.reserveCapacity(count)
        let made = timed {
          StorageContext.withValue(context) {
            for name in names {
              let shared = Shared(.inMemory(name), default: 1)
              sums.keepsake &+= shared.wrappedValue
              kept.append(shared)
            }
          }
        }
        drops.keepsake.append(timed { kept.removeAll() } / Double(count))
        return made / Double(count)
      },
      baseline: {
        var store: Mutex<[String: Int]>? = Mutex([:])
        let made = timed {
          for name in names {
            sums.baseline &+= store!.withLock { values in
              if let value = values[name] { return value }
              values[name] = 1
              return 1
            }
          }
        }
        drops.baseline.append(timed { store = nil } / Double(count))
        return made / Double(count)
      })
    var result = BenchmarkResult(
      "in-memory-keys", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(5.0), note: "per key: create, read")
    result.perItem = true
    let expected = (repetitions + 1) * count
    if sums.keepsake != expected || sums.baseline != expected {
      result.failure = "read \(sums.keepsake) and \(sums.baseline), not \(expected)"
    }
    // NB: the first pass of each side warms up, as `alternateSync`'s do.
    var dropped = BenchmarkResult(
      "in-memory-keys drop", size: count, keepsake: Array(drops.keepsake.dropFirst()),
      baseline: Array(drops.baseline.dropFirst()), target: .report,
      note: "per key: its reference dies, its value parks in the context")
    dropped.perItem = true
    return [result, dropped]
  }

  // MARK: - Read once, so observed

  /// `count` increments of a value that was read once (as a view reads what it shows).
  func observedIncrement(_ count: Int) -> BenchmarkResult {
    let shared = Self.observedShared(0)
    let floor = ObservableFloor(0)
    _ = floor.value
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: { timed { for _ in 0..<count { shared.withLock { $0 += 1 } } } },
      baseline: { timed { for _ in 0..<count { floor.withLock { $0 += 1 } } } })
    var result = BenchmarkResult(
      "observed-increment", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.3))
    let expected = (repetitions + 1) * count
    if shared.wrappedValue != expected || floor.value != expected {
      result.failure = "counted \(shared.wrappedValue) and \(floor.value), not \(expected)"
    }
    return result
  }

  /// `count` appends of a draft to a list that was read once.
  func observedAppend(_ count: Int) -> BenchmarkResult {
    let draft = SampleDrafts.make(1, seed: 3)[0]
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: {
        let shared = Self.observedShared([Draft]())
        return timed { for _ in 0..<count { shared.withLock { $0.append(draft) } } }
      },
      baseline: {
        let floor = ObservableFloor([Draft]())
        _ = floor.value
        return timed { for _ in 0..<count { floor.withLock { $0.append(draft) } } }
      })
    return BenchmarkResult(
      "observed-append", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.3))
  }

  /// `count` reads of a value: each one takes part in Observation.
  func observedRead(_ count: Int) -> BenchmarkResult {
    let shared = Self.observedShared(1)
    let floor = ObservableFloor(1)
    var sums = (keepsake: 0, baseline: 0)
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: { timed { for _ in 0..<count { sums.keepsake &+= shared.wrappedValue } } },
      baseline: { timed { for _ in 0..<count { sums.baseline &+= floor.value } } })
    var result = BenchmarkResult(
      "observed-read", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.3))
    let expected = (repetitions + 1) * count
    if sums.keepsake != expected || sums.baseline != expected {
      result.failure = "read \(sums.keepsake) and \(sums.baseline), not \(expected)"
    }
    return result
  }

  /// `count` rounds of what SwiftUI does with a shown value: track a read, then change it, which
  /// fires the tracking's `onChange` (each round must fire exactly once).
  func trackedIncrement(_ count: Int) -> BenchmarkResult {
    let shared = Self.observedShared(0)
    let floor = ObservableFloor(0)
    let fired = (keepsake: ChangeCounter(), baseline: ChangeCounter())
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: {
        timed {
          for _ in 0..<count {
            withObservationTracking {
              _ = shared.wrappedValue
            } onChange: {
              fired.keepsake.add()
            }
            shared.withLock { $0 += 1 }
          }
        }
      },
      baseline: {
        timed {
          for _ in 0..<count {
            withObservationTracking {
              _ = floor.value
            } onChange: {
              fired.baseline.add()
            }
            floor.withLock { $0 += 1 }
          }
        }
      })
    var result = BenchmarkResult(
      "tracked-increment", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.3))
    let expected = (repetitions + 1) * count
    if fired.keepsake.value != expected || fired.baseline.value != expected {
      result.failure =
        "onChange fired \(fired.keepsake.value) and \(fired.baseline.value) times, not \(expected)"
    }
    return result
  }

  /// An in-memory value of its own, read once, as a view reads the value it shows.
  static func observedShared<Value: Sendable>(_ initial: Value) -> Shared<Value> {
    let shared = StorageContext.withValue(context()) {
      Shared(.inMemory("observed-\(UUID().uuidString)"), default: initial)
    }
    _ = shared.wrappedValue
    return shared
  }
}
