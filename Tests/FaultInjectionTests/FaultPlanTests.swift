import FaultInjection
import Testing

@Suite("FaultPlan")
struct FaultPlanTests {
  @Test("Failing from the third call on lets two calls through, then fails every call")
  func failFromNthCall() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.pass(times: 2), .fail(.timeout)]
    #expect(
      faults.outcomes(of: .sync, count: 5) == [
        .returned, .returned, threw(.timeout), threw(.timeout), threw(.timeout),
      ])
  }

  @Test("Failing twice then recovering fails two calls and passes the rest")
  func failThenRecover() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.notConnected, times: 2)]
    #expect(
      faults.outcomes(of: .sync, count: 4) == [
        threw(.notConnected), threw(.notConnected), .returned, .returned,
      ])
  }

  @Test("Succeeding twice then failing once fails exactly the third call")
  func succeedThenFailOnce() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.pass(times: 2), .fail(.truncatedResponse), .pass()]
    #expect(
      faults.outcomes(of: .sync, count: 5) == [
        .returned, .returned, threw(.truncatedResponse), .returned, .returned,
      ])
  }

  @Test("A phase without a count covers one call, or all calls when it is last")
  func uncountedPhases() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.timeout), .pass(), .fail(.connectionLost)]
    #expect(
      faults.outcomes(of: .sync, count: 4) == [
        threw(.timeout), .returned, threw(.connectionLost), threw(.connectionLost),
      ])
  }

  @Test("A forever phase is never left and an empty count is skipped")
  func foreverAndZeroCounts() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.timeout, times: 0), .pass(times: .forever), .fail(.timeout)]
    #expect(faults.outcomes(of: .sync, count: 3) == [.returned, .returned, .returned])
  }

  @Test("An array literal builds the same plan as the initializer")
  func arrayLiteralMatchesInitializer() {
    let literal: FaultPlan = [.pass(times: 1), .fail(.timeout, times: 2), .pass(times: .forever)]
    let built = FaultPlan([.pass(times: 1), .fail(.timeout, times: 2), .pass(times: .forever)])
    #expect(literal.phases.map(\.repetition) == built.phases.map(\.repetition))
    #expect(literal.phases.map(\.repetition) == [.times(1), .times(2), .forever])
  }

  @Test("Any error can be injected, not only the ready-made ones")
  func customErrors() {
    struct Unauthorized: Error, Equatable {}
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(Unauthorized())]
    #expect(throws: Unauthorized()) { try faults.throwIfFailing(.sync) }
  }

  @Test("A predicate fails only the calls whose arguments match")
  func predicateOnArguments() throws {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [.fail(.timeout, when: { (page: Int) in page == 2 })]

    try faults.throwIfFailing(.fetchPage, arguments: 1)
    #expect(throws: InjectedFault.timeout) { try faults.throwIfFailing(.fetchPage, arguments: 2) }
    try faults.throwIfFailing(.fetchPage, arguments: 3)
    #expect(
      faults.calls(to: .fetchPage).map(\.outcome) == [.returned, threw(.timeout), .returned])
  }

  @Test("A predicate over a dictionary of named arguments reads naturally")
  func predicateOnNamedArguments() throws {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [
      .fail(
        .server(status: 500),
        when: { (arguments: [String: Int]) in
          arguments["page"] == 2
        })
    ]
    try faults.throwIfFailing(.fetchPage, arguments: ["page": 1])
    #expect(throws: InjectedFault.server(status: 500)) {
      try faults.throwIfFailing(.fetchPage, arguments: ["page": 2])
    }
  }

  @Test("A predicate lets through calls without arguments or with arguments of another type")
  func predicateIgnoresOtherArguments() throws {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [.fail(.timeout, when: { (_: Int) in true })]
    try faults.throwIfFailing(.fetchPage)
    try faults.throwIfFailing(.fetchPage, arguments: "2")
    #expect(throws: InjectedFault.timeout) { try faults.throwIfFailing(.fetchPage, arguments: 2) }
  }

  @Test("A predicate is also applied by the async seam")
  func predicateInAsyncSeam() async throws {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [.fail(CancellationError(), when: { (page: Int) in page > 1 })]
    try await faults.intercept(.fetchPage, arguments: 1)
    await #expect(throws: CancellationError.self) {
      try await faults.intercept(.fetchPage, arguments: 2)
    }
  }

  @Test("The same seed fails the same calls on every run")
  func randomIsReproducible() {
    func run(seed: UInt64) -> [Outcome] {
      let faults = FaultInjector<Endpoint>()
      faults[.sync] = [.random(rate: 0.3, seed: seed, error: InjectedFault.timeout)]
      return faults.outcomes(of: .sync, count: 64)
    }
    let first = run(seed: 42)
    #expect(run(seed: 42) == first)
    #expect(run(seed: 7) != first)
    let failures = first.filter { $0 == threw(.timeout) }.count
    #expect((8...32).contains(failures))
  }

  @Test("Reinstalling a random plan replays the same sequence")
  func randomRestartsWithThePlan() {
    let faults = FaultInjector<Endpoint>()
    let plan: FaultPlan = [.random(rate: 0.5, seed: 3)]
    faults[.sync] = plan
    let first = faults.outcomes(of: .sync, count: 32)
    faults[.sync] = plan
    #expect(faults.outcomes(of: .sync, count: 32) == first)
  }

  @Test("A random rate of 0 never fails and 1 always fails, with the injector's error by default")
  func randomExtremes() {
    let faults = FaultInjector<Endpoint>()
    faults.injectedError = InjectedFault.truncatedResponse
    faults[.sync] = [.random(rate: 0, seed: 1, times: 10), .random(rate: 1, seed: 1)]
    let outcomes = faults.outcomes(of: .sync, count: 20)
    #expect(outcomes.prefix(10).allSatisfy { $0 == .returned })
    #expect(outcomes.dropFirst(10).allSatisfy { $0 == threw(.truncatedResponse) })
  }
}
