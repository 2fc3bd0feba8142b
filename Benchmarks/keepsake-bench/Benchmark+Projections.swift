import Foundation
import Keepsake

/// Changes through a projection (`$settings.opened`) against the same change through the
/// parent's own `withLock`, with the projection made once and made inline, as a view model's
/// action writes it.
///
/// NB: both sides use the `Shared` from a local, as the floor's `withLock` would be called at
/// its cheapest: reaching `$settings` through a view model's property costs both sides alike
/// (a retain of the `Shared`) and would hide the projection's own cost.
extension Benchmark {
  /// A settings-like value with a counter inside.
  struct Counters: Sendable {
    var opened = 0
    var title = "drafts"
  }

  static func counters(_ count: Int) -> Shared<Counters> {
    let key = "counters-\(count)-\(UUID().uuidString)"
    return StorageContext.withValue(context()) { Shared(.inMemory(key), default: Counters()) }
  }

  /// Mutations through a projection made once: the cost of writing through a part.
  func projectedMutation(_ count: Int) -> BenchmarkResult {
    let settings = Self.counters(count)
    let opened = settings.opened
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: { timed { for _ in 0..<count { opened.withLock { $0 += 1 } } } },
      baseline: { timed { for _ in 0..<count { settings.withLock { $0.opened += 1 } } } })
    var result = BenchmarkResult(
      "projected-mutation", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(1.5))
    result.failure = Self.checkCount(settings, expected: 2 * (repetitions + 1) * count)
    return result
  }

  /// `$settings.opened.withLock { ... }` written inside the loop, as an action writes it: the
  /// projection is made on every call.
  func inlineProjection(_ count: Int) -> BenchmarkResult {
    let settings = Self.counters(count)
    let (keepsake, baseline) = alternateSync(
      repetitions,
      keepsake: { timed { for _ in 0..<count { settings.opened.withLock { $0 += 1 } } } },
      baseline: { timed { for _ in 0..<count { settings.withLock { $0.opened += 1 } } } })
    var result = BenchmarkResult(
      "inline-projection", size: count, keepsake: keepsake, baseline: baseline,
      target: .ratioAtMost(3.0), note: "a projection made per call")
    result.failure = Self.checkCount(settings, expected: 2 * (repetitions + 1) * count)
    return result
  }

  /// A failure when `settings` did not count `expected` changes.
  static func checkCount(_ settings: Shared<Counters>, expected: Int) -> String? {
    let counted = settings.wrappedValue.opened
    return counted == expected ? nil : "counted \(counted), not \(expected)"
  }
}
