import FaultInjection
import Synchronization

/// The methods of an imaginary music-library service that the tests fake.
enum Endpoint: String, Hashable, Sendable, CaseIterable {
  case fetchRecentlyPlayed
  case fetchPage
  case sync
}

typealias Outcome = FaultCall<Endpoint>.Outcome

/// The outcome logged for a call that threw `fault`.
func threw(_ fault: InjectedFault) -> Outcome {
  .threw(fault.description)
}

extension FaultInjector where Method == Endpoint {
  /// Makes `count` synchronous calls to `method` and returns what the seam did with each.
  func outcomes(of method: Endpoint, count: Int) -> [Outcome] {
    for _ in 0..<count { try? throwIfFailing(method) }
    return calls(to: method).suffix(count).map(\.outcome)
  }
}
