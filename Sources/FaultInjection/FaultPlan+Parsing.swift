extension FaultPlan {
  /// Reads a plan from its compact text form, such as `1*off->2*throw(timeout)->off`.
  ///
  /// Steps are joined by `->`. `N*step` covers N calls; a step without a count
  /// covers one call, or every remaining call when it is the last step. Once all
  /// steps are used up, calls pass. The steps are:
  ///
  /// - `off` (or `pass`): no fault.
  /// - `throw(error)`: throw a ready-made error: `timeout`, `notConnected`,
  ///   `connectionLost`, `truncatedResponse`, `server(503)`, `rateLimited`,
  ///   `rateLimited(30s)`, or `cancelled` (a `CancellationError`).
  /// - `delay(200ms)`: wait, in `ms` or `s`, then pass.
  /// - `random(0.3,seed=42)`: fail 30% of calls, reproducibly; add
  ///   `,error=timeout` to choose the error instead of the injector's default.
  ///
  /// Spaces around separators are allowed. Gates and argument predicates need
  /// the test's own objects, so they exist only in the Swift form.
  ///
  /// - Throws: ``FaultPlanParseError`` pointing at the first thing it cannot read.
  public init(parsing text: String) throws(FaultPlanParseError) {
    self = try TextParser(text).plan(text[...])
  }

  /// Reads a plan whose `throw(name)` steps may also name errors of the caller's own, such as
  /// `throw(diskFull)` for a file system double.
  ///
  /// - Parameters:
  ///   - text: The plan, in the form of ``init(parsing:)``.
  ///   - errors: Extra error names and the errors they throw; they are looked up before the
  ///     ready-made ones.
  /// - Throws: ``FaultPlanParseError`` pointing at the first thing it cannot read.
  public init(parsing text: String, errors: [String: any Error]) throws(FaultPlanParseError) {
    self = try TextParser(text, errors: errors).plan(text[...])
  }

  /// Reads plans for several methods, such as `fetch=2*throw(timeout)->off;sync=delay(1s)`.
  ///
  /// Entries are `method=plan`, separated by `;`; empty entries are ignored.
  /// The keys are the method names exactly as written.
  ///
  /// - Throws: ``FaultPlanParseError`` for a malformed entry, a malformed plan
  ///   or a method named twice.
  public static func plans(
    parsing text: String
  ) throws(FaultPlanParseError) -> [String: FaultPlan] {
    var plans: [String: FaultPlan] = [:]
    for entry in try entries(parsing: text) {
      plans[entry.name] = entry.plan
    }
    return plans
  }

  /// The entries of a multi-method text, keeping where each name starts so the
  /// injector can report an unknown method at its place in the text.
  static func entries(
    parsing text: String, errors: [String: any Error] = [:]
  ) throws(FaultPlanParseError) -> [(name: String, offset: Int, plan: FaultPlan)] {
    try TextParser(text, errors: errors).entries()
  }
}

/// Splits the text into slices of the original string, so every error can say
/// exactly where in the input it is.
private struct TextParser {
  private typealias Action = FaultPlan.Action

  let input: String
  /// Error names of the caller's own, looked up before the ready-made ones.
  let namedErrors: [String: any Error]

  init(_ input: String, errors: [String: any Error] = [:]) {
    self.input = input
    self.namedErrors = errors
  }

  func entries() throws(FaultPlanParseError) -> [(name: String, offset: Int, plan: FaultPlan)] {
    var entries: [(name: String, offset: Int, plan: FaultPlan)] = []
    for rawEntry in input[...].split(separator: ";", omittingEmptySubsequences: false) {
      let entry = trimmed(rawEntry)
      if entry.isEmpty { continue }
      guard let equals = entry.firstIndex(of: "=") else {
        throw failure("expected 'method=plan'", at: entry)
      }
      let name = trimmed(entry[..<equals])
      guard !name.isEmpty else {
        throw failure("missing method name before '='", at: entry)
      }
      if entries.contains(where: { $0.name == name }) {
        throw failure("method '\(name)' is configured twice", at: name)
      }
      let plan = try plan(entry[entry.index(after: equals)...])
      entries.append((String(name), offset(of: name), plan))
    }
    return entries
  }

  func plan(_ text: Substring) throws(FaultPlanParseError) -> FaultPlan {
    guard !trimmed(text).isEmpty else {
      throw failure("empty plan", at: trimmed(text))
    }
    let steps = text.split(separator: "->", omittingEmptySubsequences: false)
    var phases: [FaultPlan.Phase] = []
    for step in steps {
      phases.append(try phase(trimmed(step)))
    }
    return FaultPlan(phases)
  }

  private func phase(_ text: Substring) throws(FaultPlanParseError) -> FaultPlan.Phase {
    guard !text.isEmpty else { throw failure("empty step", at: text) }
    guard let star = text.firstIndex(of: "*") else { return FaultPlan.Phase(try action(text), nil) }
    let countText = trimmed(text[..<star])
    guard let count = Int(countText), count >= 1 else {
      throw failure(
        "invalid repeat count '\(countText)'; expected a whole number of 1 or more", at: countText)
    }
    let body = trimmed(text[text.index(after: star)...])
    guard !body.isEmpty else { throw failure("missing step after '*'", at: body) }
    return FaultPlan.Phase(try action(body), .times(count))
  }

  private func action(_ text: Substring) throws(FaultPlanParseError) -> Action {
    let (name, arguments) = try call(text)
    switch name {
    case "off", "pass":
      try expectNoArguments(arguments, after: name)
      return .pass
    case "throw":
      guard let arguments else {
        throw failure("'throw' needs an error, as in throw(timeout)", at: text)
      }
      return .fail(try error(arguments))
    case "delay":
      guard let arguments else {
        throw failure("'delay' needs a duration, as in delay(200ms)", at: text)
      }
      return .delay(try duration(arguments))
    case "random":
      guard let arguments else {
        throw failure("'random' needs a rate and a seed, as in random(0.3,seed=42)", at: text)
      }
      return try random(arguments)
    default:
      throw failure(
        "unknown step '\(name)'; expected off, throw(error), delay(duration) or random(rate,seed=N)",
        at: name)
    }
  }

  private func random(_ text: Substring) throws(FaultPlanParseError) -> Action {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
    let rateText = parts[0]
    guard let rate = Double(rateText), (0...1).contains(rate) else {
      throw failure("invalid rate '\(rateText)'; expected a number from 0 to 1", at: rateText)
    }
    var seed: UInt64?
    var error: (any Error)?
    for option in parts.dropFirst() {
      let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = trimmed(pair[0])
      let value = pair.count == 2 ? trimmed(pair[1]) : option[option.endIndex...]
      switch key {
      case "seed":
        guard let number = UInt64(value) else {
          throw failure("invalid seed '\(value)'; expected a whole number of 0 or more", at: value)
        }
        seed = number
      case "error":
        error = try self.error(value)
      default:
        throw failure("unknown option '\(option)'; expected seed=N or error=name", at: option)
      }
    }
    guard let seed else {
      throw failure("'random' needs a seed, as in random(0.3,seed=42)", at: text)
    }
    return .random(rate: rate, seed: seed, error: error)
  }

  private func error(_ text: Substring) throws(FaultPlanParseError) -> any Error {
    let (name, arguments) = try call(trimmed(text))
    if let named = namedErrors[String(name)] {
      try expectNoArguments(arguments, after: name)
      return named
    }
    switch name {
    case "timeout", "notConnected", "connectionLost", "truncatedResponse", "cancelled":
      try expectNoArguments(arguments, after: name)
      switch name {
      case "timeout": return InjectedFault.timeout
      case "notConnected": return InjectedFault.notConnected
      case "connectionLost": return InjectedFault.connectionLost
      case "truncatedResponse": return InjectedFault.truncatedResponse
      default: return CancellationError()
      }
    case "server":
      let statusText = arguments ?? name[name.endIndex...]
      guard let status = Int(statusText), (100...599).contains(status) else {
        throw failure("invalid status '\(statusText)'; expected server(100...599)", at: statusText)
      }
      return InjectedFault.server(status: status)
    case "rateLimited":
      return InjectedFault.rateLimited(retryAfter: try arguments.map(duration))
    default:
      throw failure(
        "unknown error '\(name)'; expected "
          + namedErrors.keys.sorted().map { "\($0), " }.joined()
          + "timeout, notConnected, connectionLost, "
          + "truncatedResponse, server(status), rateLimited or cancelled",
        at: name)
    }
  }

  private func duration(_ text: Substring) throws(FaultPlanParseError) -> Duration {
    let text = trimmed(text)
    let (number, unit): (Substring, Duration) =
      if text.hasSuffix("ms") {
        (text.dropLast(2), .milliseconds(1))
      } else if text.hasSuffix("s") {
        (text.dropLast(1), .seconds(1))
      } else {
        (text, .zero)
      }
    // Whole numbers take the exact integer path; only fractions go through Double.
    if unit != .zero, let whole = Int(number), whole >= 0 {
      return unit * whole
    }
    guard unit != .zero, let amount = Double(number), amount >= 0, amount.isFinite else {
      throw failure(
        "invalid duration '\(text)'; expected a number with ms or s, as in 200ms", at: text)
    }
    return unit * amount
  }

  /// Splits `name(arguments)`; the arguments are `nil` when there are no parentheses.
  private func call(
    _ text: Substring
  ) throws(FaultPlanParseError) -> (name: Substring, arguments: Substring?) {
    guard let open = text.firstIndex(of: "(") else { return (text, nil) }
    guard text.last == ")" else { throw failure("missing ')' in '\(text)'", at: text) }
    let name = trimmed(text[..<open])
    return (name, text[text.index(after: open)..<text.index(before: text.endIndex)])
  }

  private func expectNoArguments(
    _ arguments: Substring?,
    after name: Substring
  ) throws(FaultPlanParseError) {
    guard let arguments else { return }
    throw failure("'\(name)' takes no arguments", at: arguments)
  }

  private func trimmed(_ text: Substring) -> Substring {
    var text = text.drop(while: \.isWhitespace)
    while let last = text.last, last.isWhitespace { text = text.dropLast() }
    return text
  }

  private func offset(of text: Substring) -> Int {
    input.distance(from: input.startIndex, to: text.startIndex)
  }

  private func failure(_ message: String, at text: Substring) -> FaultPlanParseError {
    FaultPlanParseError(message: message, offendingText: String(text), offset: offset(of: text))
  }
}
