import Keepsake
import KeepsakeTesting
import Testing

@Suite("Waiting for observable state")
struct WaitUntilTests {
  @Test("The wait ends at a change made on another task", .timeLimit(.minutes(1)))
  func wakesAtTheChange() async {
    let shared = Shared(.inMemory("count"), default: 0)
    // NB: a timeout far past the time limit: only the change itself can end the wait in time.
    let waiting = Task { await waitUntil(timeout: .seconds(3_600)) { shared.wrappedValue == 3 } }
    shared.withLock { $0 = 3 }
    #expect(await waiting.value)
  }

  @Test("A condition that already holds returns at once")
  func alreadyHolds() async {
    #expect(await waitUntil(timeout: .seconds(3_600)) { true })
  }

  @Test("A condition that never holds returns false at the timeout")
  func timesOut() async {
    let shared = Shared(.inMemory("never"), default: 0)
    #expect(!(await waitUntil(timeout: .milliseconds(50)) { shared.wrappedValue == 1 }))
  }
}
