import Foundation
import Testing

@testable import KeepsakeStress

/// The ports the devices campaign's daemons listen on.
@Suite("Loopback ports for the daemons")
struct LoopbackPortTests {
  @Test("A daemon's port is free and below the ports outgoing connections take")
  func belowTheEphemeralRange() throws {
    let ephemeral = LoopbackHTTP.ephemeralPortRange()
    #expect(ephemeral.lowerBound > 1024)
    var seen: Set<Int> = []
    for _ in 0..<20 {
      let port = try LoopbackHTTP.freePort()
      #expect(port >= 20_000)
      #expect(!ephemeral.contains(port), "\(port) is one an outgoing connection may take")
      seen.insert(port)
    }
    // Drawn, not fixed: two campaigns set up at once do not start from the same port.
    #expect(seen.count > 1)
  }
}
