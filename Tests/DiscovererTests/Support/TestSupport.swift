import DiscovererFeature
import FaultInjection
import Foundation
import Synchronization

/// The file the tests cache the feed in.
///
/// Every test has its own in-memory storage, so tests sharing this path cannot see each
/// other's feed.
let feedURL = URL(filePath: "/discoverer-tests/recently-played.json")

/// A mock serving the bundled catalogue, whose delays wait on `clock` when one is given.
@MainActor
func makeService(clock: ManualClock? = nil) throws -> MockMusicService {
  let faults = clock.map { FaultInjector<MockMethod>(clock: $0) } ?? FaultInjector<MockMethod>()
  return try MockMusicService(faults: faults)
}

extension FaultInjector where Method == MockMethod {
  /// What the seam did with each call to `method`, in order.
  func outcomes(_ method: MockMethod) -> [FaultCall<MockMethod>.Outcome] {
    calls(to: method).map(\.outcome)
  }
}
