import FaultInjection
import Testing

@Suite("FaultGate", .timeLimit(.minutes(5)))
struct FaultGateTests {
  @Test("A call parks at a closed gate, shows as pending, and goes on once the gate opens")
  func parksUntilOpened() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = faults.gate(.fetchRecentlyPlayed)
    let call = Task { try await faults.intercept(.fetchRecentlyPlayed) }

    try await gate.waitUntilReached()
    #expect(gate.parkedCount == 1)
    #expect(!gate.isOpen)
    #expect(faults.log.map(\.outcome) == [.pending])

    gate.open()
    try await call.value
    #expect(gate.parkedCount == 0)
    #expect(faults.log.map(\.outcome) == [.returned])
  }

  @Test("An open gate lets later calls straight through and still counts them")
  func openGatePasses() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = faults.gate(.sync)
    gate.open()
    try await faults.intercept(.sync)
    try await faults.intercept(.sync)
    try await gate.waitUntilReached(count: 2)
    #expect(gate.arrivals == 2)
    #expect(gate.isOpen)
  }

  @Test("Waiting for several arrivals returns once all of them are parked")
  func waitsForSeveralArrivals() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = faults.gate(.fetchPage)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for page in 1...3 {
        group.addTask { try await faults.intercept(.fetchPage, arguments: page) }
      }
      try await gate.waitUntilReached(count: 3)
      #expect(gate.parkedCount == 3)
      #expect(faults.log.allSatisfy { $0.outcome == .pending })
      gate.open()
      try await group.waitForAll()
    }
    #expect(faults.log.allSatisfy { $0.outcome == .returned })
  }

  @Test("Cancelling a parked call throws CancellationError and logs it as cancelled")
  func cancellingAParkedCall() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = faults.gate(.sync)
    let call = Task { try await faults.intercept(.sync) }
    try await gate.waitUntilReached()

    call.cancel()
    await #expect(throws: CancellationError.self) { try await call.value }
    #expect(gate.parkedCount == 0)
    #expect(faults.log.map(\.outcome) == [.cancelled])
  }

  @Test("A task cancelled before it reaches a closed gate does not park")
  func alreadyCancelledTask() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = faults.gate(.sync)
    let call = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await faults.intercept(.sync)
    }
    await #expect(throws: CancellationError.self) { try await call.value }
    #expect(gate.parkedCount == 0)
    #expect(gate.arrivals == 1)
  }

  @Test("Cancelling a test waiting for an arrival throws CancellationError")
  func cancellingTheWaiter() async {
    let gate = FaultGate()
    let waiter = Task { try await gate.waitUntilReached() }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
  }

  @Test("A gate inside a plan holds only the calls of its phase")
  func gateAsAPhase() async throws {
    let faults = FaultInjector<Endpoint>()
    let gate = FaultGate()
    faults[.sync] = [.gate(gate, times: 1), .fail(.timeout)]

    let first = Task { try await faults.intercept(.sync) }
    try await gate.waitUntilReached()
    await #expect(throws: InjectedFault.timeout) { try await faults.intercept(.sync) }
    #expect(faults.log.map(\.outcome) == [.pending, threw(.timeout)])

    gate.open()
    try await first.value
    #expect(faults.log.map(\.outcome) == [.returned, threw(.timeout)])
  }
}
