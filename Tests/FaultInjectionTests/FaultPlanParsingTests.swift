import FaultInjection
import Testing

@Suite("FaultPlan text form", .timeLimit(.minutes(5)))
struct FaultPlanParsingTests {
  private func injector(_ text: String, clock: ManualClock = ManualClock()) throws -> FaultInjector<
    Endpoint
  > {
    let faults = FaultInjector<Endpoint>(clock: clock)
    faults[.sync] = try FaultPlan(parsing: text)
    return faults
  }

  @Test("The example from the issue passes once, times out twice, then recovers")
  func exampleFromTheIssue() throws {
    let faults = try injector("1*off->2*throw(timeout)->off")
    #expect(
      faults.outcomes(of: .sync, count: 5) == [
        .returned, threw(.timeout), threw(.timeout), .returned, .returned,
      ])
  }

  @Test("A step without a count runs once, and the last one forever")
  func uncountedSteps() throws {
    let faults = try injector("throw(notConnected)->pass->throw(connectionLost)")
    #expect(
      faults.outcomes(of: .sync, count: 4) == [
        threw(.notConnected), .returned, threw(.connectionLost), threw(.connectionLost),
      ])
  }

  @Test("A counted last step runs its count, then calls pass")
  func countedLastStep() throws {
    let faults = try injector("2*throw(timeout)")
    #expect(faults.outcomes(of: .sync, count: 3) == [threw(.timeout), threw(.timeout), .returned])
  }

  @Test("Spaces around separators are ignored")
  func whitespace() throws {
    let faults = try injector("  1 * off ->  2*throw( timeout ) -> off ")
    #expect(
      faults.outcomes(of: .sync, count: 4) == [
        .returned, threw(.timeout), threw(.timeout), .returned,
      ])
  }

  @Test(
    "Each ready-made error name throws its fault",
    arguments: [
      ("timeout", InjectedFault.timeout),
      ("notConnected", .notConnected),
      ("connectionLost", .connectionLost),
      ("truncatedResponse", .truncatedResponse),
      ("server(503)", .server(status: 503)),
      ("rateLimited", .rateLimited(retryAfter: nil)),
      ("rateLimited(30s)", .rateLimited(retryAfter: .seconds(30))),
    ]
  )
  func errorNames(name: String, fault: InjectedFault) throws {
    let faults = try injector("throw(\(name))")
    #expect(throws: fault) { try faults.throwIfFailing(.sync) }
  }

  @Test("The name cancelled throws a CancellationError")
  func cancelledName() throws {
    let faults = try injector("throw(cancelled)")
    #expect(throws: CancellationError.self) { try faults.throwIfFailing(.sync) }
  }

  @Test(
    "A delay is read in milliseconds or seconds",
    arguments: [
      ("delay(200ms)", Duration.milliseconds(200)),
      ("delay(2s)", .seconds(2)),
      ("delay(1.5s)", .milliseconds(1500)),
      ("delay(0ms)", .zero),
    ]
  )
  func delays(text: String, duration: Duration) async throws {
    let clock = ManualClock()
    let faults = try injector(text, clock: clock)
    var started = clock.sleepsStarted.makeAsyncIterator()
    let call = Task { try await faults.intercept(.sync) }
    if duration > .zero {
      #expect(await started.next() == duration)
      clock.advance(by: duration)
    }
    try await call.value
    #expect(faults.log.map(\.outcome) == [.returned])
  }

  @Test("A random step fails the same calls as the same plan written in Swift")
  func randomStep() throws {
    let parsed = try injector("random(0.3,seed=42)")
    let built = FaultInjector<Endpoint>()
    built[.sync] = [.random(rate: 0.3, seed: 42)]
    let outcomes = parsed.outcomes(of: .sync, count: 40)
    #expect(outcomes == built.outcomes(of: .sync, count: 40))
    #expect(outcomes.contains(.returned))
    #expect(outcomes.contains(threw(.connectionLost)))
  }

  @Test("A random step can name its error")
  func randomStepWithError() throws {
    let faults = try injector("random(1, seed=1, error=server(503))")
    #expect(throws: InjectedFault.server(status: 503)) { try faults.throwIfFailing(.sync) }
  }

  @Test("Several methods are read from one text, separated by semicolons")
  func severalMethods() throws {
    let plans = try FaultPlan.plans(
      parsing: "fetchPage=throw(timeout); sync=2*off->throw(notConnected);")
    #expect(Set(plans.keys) == ["fetchPage", "sync"])
    #expect(plans["sync"]?.phases.map(\.repetition) == [.times(2), nil])
  }

  @Test("An empty text configures no methods")
  func emptyConfiguration() throws {
    #expect(try FaultPlan.plans(parsing: " ; ").isEmpty)
  }

  struct BadInput: Sendable, CustomTestStringConvertible {
    var text: String
    var message: String
    var offendingText: String
    var offset: Int
    var testDescription: String { "'\(text)'" }
  }

  @Test(
    "A malformed plan is reported with its exact message and position",
    arguments: [
      BadInput(text: "", message: "empty plan", offendingText: "", offset: 0),
      BadInput(text: "off->->off", message: "empty step", offendingText: "", offset: 5),
      BadInput(text: "off->", message: "empty step", offendingText: "", offset: 5),
      BadInput(
        text: "x*off", message: "invalid repeat count 'x'; expected a whole number of 1 or more",
        offendingText: "x", offset: 0),
      BadInput(
        text: "off->0*throw(timeout)",
        message: "invalid repeat count '0'; expected a whole number of 1 or more",
        offendingText: "0", offset: 5),
      BadInput(text: "2*", message: "missing step after '*'", offendingText: "", offset: 2),
      BadInput(
        text: "thorw(timeout)",
        message:
          "unknown step 'thorw'; expected off, throw(error), delay(duration) or random(rate,seed=N)",
        offendingText: "thorw", offset: 0),
      BadInput(
        text: "1*off->throw(timeuot)",
        message:
          "unknown error 'timeuot'; expected timeout, notConnected, connectionLost, "
          + "truncatedResponse, server(status), rateLimited or cancelled",
        offendingText: "timeuot", offset: 13),
      BadInput(
        text: "throw", message: "'throw' needs an error, as in throw(timeout)",
        offendingText: "throw", offset: 0),
      BadInput(
        text: "throw(timeout", message: "missing ')' in 'throw(timeout'",
        offendingText: "throw(timeout", offset: 0),
      BadInput(
        text: "throw(server(99))", message: "invalid status '99'; expected server(100...599)",
        offendingText: "99", offset: 13),
      BadInput(
        text: "throw(server)", message: "invalid status ''; expected server(100...599)",
        offendingText: "", offset: 12),
      BadInput(
        text: "throw(timeout(3))", message: "'timeout' takes no arguments",
        offendingText: "3", offset: 14),
      BadInput(text: "off(1)", message: "'off' takes no arguments", offendingText: "1", offset: 4),
      BadInput(
        text: "delay", message: "'delay' needs a duration, as in delay(200ms)",
        offendingText: "delay", offset: 0),
      BadInput(
        text: "delay(200)",
        message: "invalid duration '200'; expected a number with ms or s, as in 200ms",
        offendingText: "200", offset: 6),
      BadInput(
        text: "delay(-1s)",
        message: "invalid duration '-1s'; expected a number with ms or s, as in 200ms",
        offendingText: "-1s", offset: 6),
      BadInput(
        text: "random", message: "'random' needs a rate and a seed, as in random(0.3,seed=42)",
        offendingText: "random", offset: 0),
      BadInput(
        text: "random(1.5,seed=1)", message: "invalid rate '1.5'; expected a number from 0 to 1",
        offendingText: "1.5", offset: 7),
      BadInput(
        text: "random(0.3)", message: "'random' needs a seed, as in random(0.3,seed=42)",
        offendingText: "0.3", offset: 7),
      BadInput(
        text: "random(0.3,seed=x)",
        message: "invalid seed 'x'; expected a whole number of 0 or more",
        offendingText: "x", offset: 16),
      BadInput(
        text: "random(0.3,sed=4)", message: "unknown option 'sed=4'; expected seed=N or error=name",
        offendingText: "sed=4", offset: 11),
    ]
  )
  func malformedPlan(input: BadInput) {
    let expected = FaultPlanParseError(
      message: input.message, offendingText: input.offendingText, offset: input.offset)
    #expect(throws: expected) { try FaultPlan(parsing: input.text) }
  }

  @Test(
    "A malformed configuration is reported with its exact message and position",
    arguments: [
      BadInput(text: "sync", message: "expected 'method=plan'", offendingText: "sync", offset: 0),
      BadInput(
        text: "=off", message: "missing method name before '='", offendingText: "=off", offset: 0),
      BadInput(
        text: "sync=off;sync=throw(timeout)", message: "method 'sync' is configured twice",
        offendingText: "sync", offset: 9),
      BadInput(text: "sync=", message: "empty plan", offendingText: "", offset: 5),
    ]
  )
  func malformedConfiguration(input: BadInput) {
    let expected = FaultPlanParseError(
      message: input.message, offendingText: input.offendingText, offset: input.offset)
    #expect(throws: expected) { try FaultPlan.plans(parsing: input.text) }
  }

  @Test("Positions count from the start of the whole configuration text")
  func positionsInConfiguration() {
    let error = #expect(throws: FaultPlanParseError.self) {
      try FaultPlan.plans(parsing: "sync=off; fetch = throw(nope)")
    }
    #expect(error?.offset == 24)
    #expect(error?.column == 25)
    #expect(error?.offendingText == "nope")
    #expect(
      error?.description
        == "column 25: unknown error 'nope'; expected timeout, notConnected, connectionLost, "
        + "truncatedResponse, server(status), rateLimited or cancelled")
  }
}
