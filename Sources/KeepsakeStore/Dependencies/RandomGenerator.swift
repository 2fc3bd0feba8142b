import Synchronization

/// Random numbers: the system's in an app, a seeded, repeatable sequence in a test.
///
/// Read it with `@Dependency(\.random) var random`, and pass it to any API that takes a
/// `RandomNumberGenerator`:
///
/// ```swift
/// let roll = random { Int.random(in: 1...6, using: &$0) }
/// ```
///
/// Copies share one sequence. Its test value is ``seeded(_:)`` with seed 0, made fresh for each
/// test and each test store, so the same test draws the same numbers on every run and platform.
/// `RandomGenerator` is `Sendable`; draw from any executor.
public struct RandomGenerator: RandomNumberGenerator, Sendable {
  private let source: Source

  private init(_ state: Source.State) {
    self.source = Source(state)
  }

  /// The next random value.
  public func next() -> UInt64 {
    source.next()
  }

  /// Runs `body` with a generator to pass as `using: &generator`.
  public func callAsFunction<R>(_ body: (inout RandomGenerator) throws -> R) rethrows -> R {
    var generator = self
    return try body(&generator)
  }

  /// The system's generator (`SystemRandomNumberGenerator`): the live value.
  public static var live: RandomGenerator {
    RandomGenerator(.system)
  }

  /// A repeatable sequence (SplitMix64): the same seed gives the same numbers everywhere.
  public static func seeded(_ seed: UInt64) -> RandomGenerator {
    RandomGenerator(.seeded(seed))
  }

  private final class Source: Sendable {
    enum State {
      case system
      case seeded(UInt64)
    }

    private let state: Mutex<State>

    init(_ state: State) {
      self.state = Mutex(state)
    }

    func next() -> UInt64 {
      state.withLock { state in
        switch state {
        case .system:
          var system = SystemRandomNumberGenerator()
          return system.next()
        case .seeded(let seed):
          // NB: SplitMix64, as FaultInjection's SeededRandom, which this module may not import.
          let advanced = seed &+ 0x9E37_79B9_7F4A_7C15
          state = .seeded(advanced)
          var mixed = advanced
          mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
          mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
          return mixed ^ (mixed >> 31)
        }
      }
    }
  }
}

extension DependencyValues {
  /// Random numbers: ``RandomGenerator/live`` in an app, ``RandomGenerator/seeded(_:)`` with
  /// seed 0 under test.
  public var random: RandomGenerator {
    get { self[RandomGeneratorKey.self] }
    set { self[RandomGeneratorKey.self] = newValue }
  }
}

private enum RandomGeneratorKey: DependencyKey {
  static var liveValue: RandomGenerator { .live }
  static var testValue: RandomGenerator { .seeded(0) }
}
