import Foundation

extension FaultInjector where Method: RawRepresentable, Method.RawValue == String {
  /// The environment variable the UI-test configuration is read from by default.
  public static var defaultVariable: String { "KEEPSAKE_FAULTS" }

  /// Creates an injector configured from an environment variable, for an app launched by a UI test.
  ///
  /// The UI test sets, for example,
  /// `app.launchEnvironment["KEEPSAKE_FAULTS"] = "fetchRecentlyPlayed=2*throw(timeout)->off"`,
  /// and the app builds its mocks' injector with this initializer. A missing or
  /// empty variable means no faults. See ``configure(parsing:)`` for the format.
  ///
  /// - Throws: ``FaultPlanParseError`` when the variable cannot be read; an app
  ///   should surface it loudly, since a silently ignored fault makes a UI test
  ///   pass for the wrong reason.
  public convenience init<C: Clock>(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    variable: String = defaultVariable,
    clock: C = ContinuousClock()
  ) throws(FaultPlanParseError) where C.Duration == Duration {
    self.init(clock: clock)
    if let text = environment[variable] {
      try configure(parsing: text)
    }
  }

  /// Installs the plans written in `text`, such as `fetch=1*off->2*throw(timeout)->off;sync=delay(1s)`.
  ///
  /// Each `method=plan` entry replaces that method's plan; names are the
  /// methods' raw values. Nothing is installed unless the whole text is valid.
  /// The plan syntax is described at ``FaultPlan/init(parsing:)``.
  ///
  /// - Throws: ``FaultPlanParseError`` for malformed text or a name that is
  ///   not a raw value of `Method`.
  public func configure(parsing text: String) throws(FaultPlanParseError) {
    try configure(parsing: text, errors: [:])
  }

  /// Installs the plans written in `text`, whose `throw(name)` steps may also name `errors`
  /// of the caller's own (see ``FaultPlan/init(parsing:errors:)``).
  ///
  /// - Throws: ``FaultPlanParseError`` for malformed text or a name that is not a raw value of
  ///   `Method`.
  public func configure(
    parsing text: String, errors: [String: any Error]
  ) throws(FaultPlanParseError) {
    var plans: [(Method, FaultPlan)] = []
    for entry in try FaultPlan.entries(parsing: text, errors: errors) {
      guard let method = Method(rawValue: entry.name) else {
        throw FaultPlanParseError(
          message: "unknown method '\(entry.name)'",
          offendingText: entry.name,
          offset: entry.offset)
      }
      plans.append((method, entry.plan))
    }
    for (method, plan) in plans {
      self[method] = plan
    }
  }
}
