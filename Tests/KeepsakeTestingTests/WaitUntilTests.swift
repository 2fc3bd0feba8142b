import Keepsake
import KeepsakeTesting
import Synchronization
import Testing

@Suite("Waiting for observable state")
struct WaitUntilTests {
  @Test("The wait ends at a change made after it began", .timeLimit(.minutes(5)))
  func wakesAtTheChange() async {
    let shared = Shared(.inMemory("count"), default: 0)
    let checks = Mutex(0)
    // NB: a timeout far past the time limit: only the change itself can end the wait in time. The
    // change is made once the wait watches (at its second check), so it cannot come before.
    let held = await waitUntil(timeout: .seconds(3_600)) {
      let check = checks.withLock {
        $0 += 1
        return $0
      }
      if check == 2 { Task { shared.withLock { $0 = 3 } } }
      return shared.wrappedValue == 3
    }
    #expect(held)
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
