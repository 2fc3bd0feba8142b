/// A script of what happens to successive calls of one method.
///
/// A plan is a list of phases. Each phase applies one behaviour — pass, fail,
/// delay, park at a gate, fail at random, fail when the arguments match — to a
/// number of calls, then hands over to the next phase. A phase without a count
/// covers one call, unless it is the last phase, which then covers every
/// remaining call. Once every phase is used up, calls pass.
///
/// ```swift
/// // Succeed once, time out twice, then recover for good.
/// faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.timeout, times: 2), .pass()]
///
/// // Fail from the third call on.
/// faults[.sync] = [.pass(times: 2), .fail(.notConnected)]
/// ```
///
/// The same plan can be written as text; see ``init(parsing:)``.
public struct FaultPlan: Sendable, ExpressibleByArrayLiteral {
  /// The phases, in the order calls go through them.
  public var phases: [Phase]

  /// Creates a plan that runs through `phases` in order.
  public init(_ phases: [Phase]) {
    self.phases = phases
  }

  /// Creates a plan from a list of phases written as an array literal.
  public init(arrayLiteral phases: Phase...) {
    self.init(phases)
  }

  /// How many calls a phase covers.
  public enum Repetition: Sendable, Hashable, ExpressibleByIntegerLiteral {
    /// This many calls; zero or fewer skips the phase.
    case times(Int)
    /// Every remaining call; later phases are never reached.
    case forever

    /// Creates a count from an integer literal, so `times: 2` reads naturally.
    public init(integerLiteral count: Int) {
      self = .times(count)
    }
  }

  /// One behaviour applied to a run of calls.
  public struct Phase: Sendable {
    let action: Action
    /// How many calls this phase covers; `nil` means one, or all if it is the last phase.
    public var repetition: Repetition?

    init(_ action: Action, _ repetition: Repetition?) {
      self.action = action
      self.repetition = repetition
    }

    /// Lets calls through untouched.
    public static func pass(times: Repetition? = nil) -> Phase {
      Phase(.pass, times)
    }

    /// Makes calls throw `error`.
    public static func fail(_ error: any Error, times: Repetition? = nil) -> Phase {
      Phase(.fail(error), times)
    }

    /// Makes calls throw a ready-made ``InjectedFault``, as in `.fail(.timeout)`.
    public static func fail(_ fault: InjectedFault, times: Repetition? = nil) -> Phase {
      Phase(.fail(fault), times)
    }

    /// Makes calls throw `error` when `predicate` holds for the call's arguments.
    ///
    /// The predicate sees the value passed as `arguments:` to the seam. Calls
    /// made without arguments, or with arguments of another type, pass. The
    /// predicate runs outside the injector's lock, on the calling task.
    ///
    /// ```swift
    /// faults[.fetchPage] = [.fail(.timeout, when: { (page: Int) in page == 2 })]
    /// ```
    public static func fail<Arguments: Sendable>(
      _ error: any Error,
      when predicate: @escaping @Sendable (Arguments) -> Bool,
      times: Repetition? = nil
    ) -> Phase {
      let matches: @Sendable ((any Sendable)?) -> Bool = { arguments in
        guard let typed = arguments as? Arguments else { return false }
        return predicate(typed)
      }
      return Phase(.failWhen(matches, error), times)
    }

    /// Makes calls throw a ready-made ``InjectedFault`` when `predicate` holds for their arguments.
    public static func fail<Arguments: Sendable>(
      _ fault: InjectedFault,
      when predicate: @escaping @Sendable (Arguments) -> Bool,
      times: Repetition? = nil
    ) -> Phase {
      fail(fault as any Error, when: predicate, times: times)
    }

    /// Holds calls for `duration` on the injector's clock, then lets them through.
    ///
    /// Only the async seam, ``FaultInjector/intercept(_:)``, waits; the
    /// synchronous seam cannot suspend and lets the call straight through.
    public static func delay(_ duration: Duration, times: Repetition? = nil) -> Phase {
      Phase(.delay(duration), times)
    }

    /// Parks calls at `gate` until the test opens it.
    ///
    /// Only the async seam waits; the synchronous seam lets the call through.
    public static func gate(_ gate: FaultGate, times: Repetition? = nil) -> Phase {
      Phase(.gate(gate), times)
    }

    /// Fails each call with probability `rate`, drawn from a generator seeded with `seed`.
    ///
    /// The generator starts afresh whenever the plan is installed, so the same
    /// seed fails the same calls on every run. `error` defaults to the
    /// injector's ``FaultInjector/injectedError``.
    public static func random(
      rate: Double,
      seed: UInt64,
      error: (any Error)? = nil,
      times: Repetition? = nil
    ) -> Phase {
      Phase(.random(rate: rate, seed: seed, error: error), times)
    }
  }

  enum Action: Sendable {
    case pass
    case fail(any Error)
    case failWhen(@Sendable ((any Sendable)?) -> Bool, any Error)
    case delay(Duration)
    case gate(FaultGate)
    case random(rate: Double, seed: UInt64, error: (any Error)?)
  }
}

extension FaultPlan {
  /// Where one method stands in its plan: the phase, the calls it has used,
  /// and the random generators its random phases have advanced.
  struct Cursor: Sendable {
    let plan: FaultPlan
    private var phase = 0
    private var used = 0
    private var generators: [Int: SeededRandom] = [:]

    init(_ plan: FaultPlan) {
      self.plan = plan
    }

    /// Consumes one call and returns what should happen to it.
    ///
    /// Random phases are decided here, under the injector's lock, so that
    /// concurrent calls draw from the sequence one at a time, in call order.
    mutating func next(defaultError: any Error) -> Action {
      let phases = plan.phases
      while phase < phases.count {
        let current = phases[phase]
        let limit: Int? =
          switch current.repetition {
          case .times(let count): count
          case .forever: nil
          case nil: phase == phases.count - 1 ? nil : 1
          }
        if let limit, used >= limit {
          phase += 1
          used = 0
          continue
        }
        used += 1
        guard case .random(let rate, let seed, let error) = current.action else {
          return current.action
        }
        var generator = generators[phase] ?? SeededRandom(seed: seed)
        let fails = generator.chance(rate)
        generators[phase] = generator
        return fails ? .fail(error ?? defaultError) : .pass
      }
      return .pass
    }
  }
}
