import FaultInjection
import Testing

@Suite("FaultCall log")
struct FaultCallTests {
  @Test("Calls are numbered in one order across all methods")
  func globalOrder() throws {
    let faults = FaultInjector<Endpoint>()
    try faults.throwIfFailing(.sync)
    try faults.throwIfFailing(.fetchPage, arguments: 1)
    try faults.throwIfFailing(.sync)
    try faults.throwIfFailing(.fetchRecentlyPlayed)

    #expect(faults.log.map(\.sequence) == [1, 2, 3, 4])
    #expect(faults.log.map(\.method) == [.sync, .fetchPage, .sync, .fetchRecentlyPlayed])
    #expect(faults.calls(to: .sync).map(\.sequence) == [1, 3])
    #expect(faults.callCount(.sync) == 2)
    #expect(faults.callCount(.fetchPage) == 1)
  }

  @Test("A call that fails is still recorded, with the error it threw")
  func failedCallsAreRecorded() {
    let faults = FaultInjector<Endpoint>()
    faults[.sync] = [.fail(.server(status: 500))]
    #expect(throws: InjectedFault.server(status: 500)) { try faults.throwIfFailing(.sync) }
    #expect(faults.callCount(.sync) == 1)
    #expect(faults.log.first?.outcome == .threw("The server responded with status 500."))
  }

  @Test("Arguments are kept and can be read back as their type")
  func argumentsAreKept() throws {
    let faults = FaultInjector<Endpoint>()
    try faults.throwIfFailing(.fetchPage, arguments: ["page": 2])
    try faults.throwIfFailing(.sync)

    #expect(faults.log[0].arguments(as: [String: Int].self) == ["page": 2])
    #expect(faults.log[0].arguments(as: Int.self) == nil)
    #expect(faults.log[1].arguments == nil)
  }

  @Test("A call and its outcome read as one line")
  func descriptions() throws {
    let faults = FaultInjector<Endpoint>()
    faults[.fetchPage] = [.pass(times: 1), .fail(.timeout)]
    try faults.throwIfFailing(.sync)
    try faults.throwIfFailing(.fetchPage, arguments: 1)
    #expect(throws: InjectedFault.timeout) { try faults.throwIfFailing(.fetchPage, arguments: 2) }

    #expect(
      faults.log.map(\.description) == [
        "#1 sync -> returned",
        "#2 fetchPage(1) -> returned",
        "#3 fetchPage(2) -> threw(The request timed out.)",
      ])
    #expect(Outcome.pending.description == "pending")
    #expect(Outcome.cancelled.description == "cancelled")
  }
}
