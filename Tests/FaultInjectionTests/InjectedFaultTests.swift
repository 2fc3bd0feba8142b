import FaultInjection
import Foundation
import Testing

@Suite("InjectedFault")
struct InjectedFaultTests {
  @Test(
    "Each fault describes itself in a sentence",
    arguments: [
      (InjectedFault.timeout, "The request timed out."),
      (.notConnected, "The device is not connected to the internet."),
      (.connectionLost, "The network connection was lost."),
      (.truncatedResponse, "The response ended before all of its data arrived."),
      (.server(status: 503), "The server responded with status 503."),
      (.rateLimited(retryAfter: nil), "Too many requests."),
      (.rateLimited(retryAfter: .seconds(30)), "Too many requests; retry after 30.0 seconds."),
    ]
  )
  func descriptions(fault: InjectedFault, text: String) {
    #expect(fault.description == text)
    #expect(fault.localizedDescription == text)
  }

  @Test("Faults compare by case and associated value")
  func equality() {
    #expect(InjectedFault.server(status: 503) == .server(status: 503))
    #expect(InjectedFault.server(status: 503) != .server(status: 500))
    #expect(InjectedFault.rateLimited(retryAfter: nil) != .rateLimited(retryAfter: .seconds(1)))
    #expect(InjectedFault.timeout != .connectionLost)
  }

  @Test("Transport failures, server errors and rate limiting are retryable; client errors are not")
  func retryability() {
    #expect(InjectedFault.timeout.isRetryable)
    #expect(InjectedFault.connectionLost.isRetryable)
    #expect(InjectedFault.rateLimited(retryAfter: nil).isRetryable)
    #expect(InjectedFault.server(status: 503).isRetryable)
    #expect(!InjectedFault.server(status: 404).isRetryable)
  }
}
