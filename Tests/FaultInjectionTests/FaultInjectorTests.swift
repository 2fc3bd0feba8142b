import FaultInjection
import Testing

@Suite("FaultInjector", .timeLimit(.minutes(5)))
struct FaultInjectorTests {
  @Test("A fresh injector lets every call through and logs it as returned")
  func freshInjectorPasses() throws {
    let faults = FaultInjector<Endpoint>()
    for method in Endpoint.allCases { try faults.throwIfFailing(method) }
    #expect(faults.log.map(\.outcome) == [.returned, .returned, .returned])
    #expect(faults.log.map(\.method) == Endpoint.allCases)
  }

  @Test("The plain form fails the listed methods with the injected error and no others")
  func plainFormFailsListedMethods() throws {
    let faults = FaultInjector<Endpoint>()
    faults.failingMethods = [.fetchRecentlyPlayed]
    faults.injectedError = CancellationError()

    #expect(throws: CancellationError.self) { try faults.throwIfFailing(.fetchRecentlyPlayed) }
    try faults.throwIfFailing(.sync)
    #expect(faults.failingMethods == [.fetchRecentlyPlayed])
    #expect(faults.injectedError is CancellationError)
  }

  @Test("The injected error defaults to a lost connection")
  func injectedErrorDefault() {
    let faults = FaultInjector<Endpoint>()
    faults.failingMethods = [.sync]
    #expect(throws: InjectedFault.connectionLost) { try faults.throwIfFailing(.sync) }
  }

  @Test("Each method can fail with its own error")
  func differentErrorPerMethod() {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchRecentlyPlayed] = [.fail(.timeout)]
    faults[.fetchPage] = [.fail(.server(status: 503))]
    faults[.sync] = [.fail(.rateLimited(retryAfter: .seconds(30)))]

    #expect(throws: InjectedFault.timeout) { try faults.throwIfFailing(.fetchRecentlyPlayed) }
    #expect(throws: InjectedFault.server(status: 503)) { try faults.throwIfFailing(.fetchPage) }
    #expect(throws: InjectedFault.rateLimited(retryAfter: .seconds(30))) {
      try faults.throwIfFailing(.sync)
    }
  }

  @Test("A method in failingMethods fails even when its plan would let it pass")
  func failingMethodsOverridePlans() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.pass()]
    faults.failingMethods = [.sync]
    #expect(throws: InjectedFault.connectionLost) { try faults.throwIfFailing(.sync) }
    faults.failingMethods = []
    #expect(throws: Never.self) { try faults.throwIfFailing(.sync) }
  }

  @Test("Installing a plan starts it from the first phase and nil removes it")
  func replacingPlansRestartsThem() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.timeout, times: 1), .pass()]
    #expect(faults.outcomes(of: .sync, count: 2) == [threw(.timeout), .returned])

    faults[.sync] = [.fail(.timeout, times: 1), .pass()]
    #expect(faults.outcomes(of: .sync, count: 2) == [threw(.timeout), .returned])
    #expect(faults[.sync]?.phases.count == 2)

    faults[.sync] = nil
    #expect(faults[.sync] == nil)
    #expect(faults.outcomes(of: .sync, count: 1) == [.returned])
  }

  @Test("The synchronous seam lets delayed and gated calls straight through")
  func synchronousSeamDoesNotSuspend() throws {
    let faults = FaultInjector<Endpoint>(clock: ManualClock())
    faults[.sync] = [.delay(.seconds(60))]
    let gate = faults.gate(.fetchPage)

    try faults.throwIfFailing(.sync)
    try faults.throwIfFailing(.fetchPage)
    #expect(faults.log.map(\.outcome) == [.returned, .returned])
    #expect(gate.arrivals == 0)
  }

  @Test("A delay holds the call until the clock reaches it, then lets it through")
  func delayWaitsForTheClock() async throws {
    let clock = ManualClock()
    let faults = FaultInjector<Endpoint>(clock: clock)
    faults[.fetchPage] = [.delay(.seconds(5))]
    var started = clock.sleepsStarted.makeAsyncIterator()

    let call = Task { try await faults.intercept(.fetchPage, arguments: 1) }
    #expect(await started.next() == .seconds(5))
    #expect(faults.log.map(\.outcome) == [.pending])

    clock.advance(by: .seconds(4))
    #expect(clock.sleeperCount == 1)
    #expect(faults.log.map(\.outcome) == [.pending])

    clock.advance(by: .seconds(1))
    try await call.value
    #expect(faults.log.map(\.outcome) == [.returned])
  }

  @Test("Cancelling a call held by a delay throws CancellationError and logs it as cancelled")
  func cancellingADelay() async throws {
    let clock = ManualClock()
    let faults = FaultInjector<Endpoint>(clock: clock)
    faults[.sync] = [.delay(.seconds(30))]
    var started = clock.sleepsStarted.makeAsyncIterator()

    let call = Task { try await faults.intercept(.sync) }
    #expect(await started.next() == .seconds(30))
    call.cancel()

    await #expect(throws: CancellationError.self) { try await call.value }
    #expect(faults.log.map(\.outcome) == [.cancelled])
    #expect(clock.sleeperCount == 0)
  }

  @Test("With the default clock a short delay passes and a cancelled long one ends at once")
  func continuousClockDelay() async throws {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.delay(.milliseconds(1), times: 1), .delay(.seconds(600))]
    try await faults.intercept(.sync)

    let call = Task { try await faults.intercept(.sync) }
    call.cancel()
    await #expect(throws: CancellationError.self) { try await call.value }
    #expect(faults.log.map(\.outcome) == [.returned, .cancelled])
  }

  @Test("A delay followed by a failure waits, then throws")
  func delayThenFailure() async throws {
    let clock = ManualClock()
    let faults = FaultInjector<Endpoint>(clock: clock)
    faults[.sync] = [.delay(.seconds(1), times: 1), .fail(.timeout)]
    var started = clock.sleepsStarted.makeAsyncIterator()

    let first = Task { try await faults.intercept(.sync) }
    #expect(await started.next() == .seconds(1))
    clock.advance(by: .seconds(1))
    try await first.value
    await #expect(throws: InjectedFault.timeout) { try await faults.intercept(.sync) }
    #expect(faults.log.map(\.outcome) == [.returned, threw(.timeout)])
  }

  @Test("200 concurrent calls consume a plan exactly once each")
  func concurrentCallsAddUp() async {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [.fail(.timeout, times: 50), .pass()]
    faults.failingMethods = [.sync]

    let failures = await withTaskGroup(of: Bool.self) { group in
      for index in 0..<200 {
        group.addTask {
          let method: Endpoint = index.isMultiple(of: 4) ? .sync : .fetchPage
          do {
            try await faults.intercept(method, arguments: index)
            return false
          } catch {
            return true
          }
        }
      }
      return await group.reduce(0) { $1 ? $0 + 1 : $0 }
    }

    #expect(failures == 50 + 50)
    #expect(faults.callCount(.fetchPage) == 150)
    #expect(faults.callCount(.sync) == 50)
    #expect(faults.log.map(\.sequence) == Array(1...200))
    let pageOutcomes = faults.calls(to: .fetchPage).map(\.outcome)
    #expect(pageOutcomes.prefix(50).allSatisfy { $0 == threw(.timeout) })
    #expect(pageOutcomes.dropFirst(50).allSatisfy { $0 == .returned })
    #expect(Set(faults.log.compactMap { $0.arguments(as: Int.self) }) == Set(0..<200))
  }

  @Test("The seams work from the main actor")
  @MainActor
  func usableFromMainActor() async throws {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.timeout, times: 1), .pass()]
    #expect(throws: InjectedFault.timeout) { try faults.throwIfFailing(.sync) }
    try await faults.intercept(.sync)
    #expect(faults.callCount(.sync) == 2)
  }

  @Test("The seams work from inside an actor")
  func usableFromAnActor() async throws {
    actor Repository {
      let faults = FaultInjector<Endpoint>()
      func load() async throws -> Int {
        try faults.throwIfFailing(.fetchRecentlyPlayed)
        try await faults.intercept(.fetchPage, arguments: 1)
        return 1
      }
    }
    let repository = Repository()
    repository.faults[.fetchPage] = [.fail(.notConnected)]
    await #expect(throws: InjectedFault.notConnected) { try await repository.load() }
    #expect(repository.faults.log.map(\.method) == [.fetchRecentlyPlayed, .fetchPage])
  }

  @Test("An environment without the variable configures no faults")
  func environmentWithoutVariable() throws {
    let faults = try FaultInjector<Endpoint>(environment: ["OTHER": "sync=throw(timeout)"])
    #expect(faults.outcomes(of: .sync, count: 1) == [.returned])
  }

  @Test("The environment variable installs a plan for each named method")
  func environmentInstallsPlans() throws {
    let faults = try FaultInjector<Endpoint>(
      environment: [
        "KEEPSAKE_FAULTS":
          "fetchRecentlyPlayed=1*off->2*throw(timeout)->off; sync=throw(server(503))"
      ]
    )
    #expect(
      faults.outcomes(of: .fetchRecentlyPlayed, count: 5) == [
        .returned, threw(.timeout), threw(.timeout), .returned, .returned,
      ])
    #expect(
      faults.outcomes(of: .sync, count: 2) == [
        threw(.server(status: 503)), threw(.server(status: 503)),
      ])
    #expect(faults.outcomes(of: .fetchPage, count: 1) == [.returned])
  }

  @Test("A custom variable name is honoured")
  func customVariable() throws {
    let faults = try FaultInjector<Endpoint>(
      environment: [
        "KEEPSAKE_FAULTS": "sync=throw(timeout)", "MY_FAULTS": "sync=throw(notConnected)",
      ],
      variable: "MY_FAULTS"
    )
    #expect(faults.outcomes(of: .sync, count: 1) == [threw(.notConnected)])
  }

  @Test("An unknown method name is reported at its column")
  func unknownMethod() {
    #expect(
      throws: FaultPlanParseError(
        message: "unknown method 'fetchRecent'", offendingText: "fetchRecent", offset: 13)
    ) {
      try FaultInjector<Endpoint>(environment: [
        "KEEPSAKE_FAULTS": "sync=off;    fetchRecent=throw(timeout)"
      ])
    }
  }

  @Test("A text with an error installs nothing")
  func invalidTextInstallsNothing() {
    let faults = FaultInjector<Endpoint>()
    #expect(throws: FaultPlanParseError.self) {
      try faults.configure(parsing: "sync=throw(timeout);fetchPage=throw(nope)")
    }
    #expect(faults[.sync] == nil)
    #expect(faults.outcomes(of: .sync, count: 1) == [.returned])
  }
}
