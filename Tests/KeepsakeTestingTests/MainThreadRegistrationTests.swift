import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import KeepsakeTesting

/// XCTest's observer must be added on the main thread (Darwin's XCTest throws elsewhere), while
/// the first key of a test may be made on any thread, and the main thread may be blocked waiting.
///
/// NB: XCTest, not Swift Testing: XCTest runs its test methods on the process's main thread (and
/// drains the main queue there while it waits for an async test), as on Apple platforms; under
/// Swift Testing on Linux the main queue is drained by another thread.
final class MainThreadRegistrationTests: XCTestCase {
  /// A registration that records, each time it runs, whether it ran on the main thread.
  final class Recording: Sendable {
    let runs = Mutex<[Bool]>([])
    let ran = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func registration(
      onMainQueue: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) -> MainThreadRegistration {
      guard let onMainQueue else { return MainThreadRegistration { self.record() } }
      return MainThreadRegistration(onMainQueue: onMainQueue) { self.record() }
    }

    private func record() {
      runs.withLock { $0.append(Thread.isMainThread) }
      ran.withLock { $0.take() }?.resume()
    }

    /// Returns once the registration has run.
    func waitUntilRun() async {
      await withCheckedContinuation { continuation in
        let already = runs.withLock { runs in
          if runs.isEmpty { ran.withLock { $0 = continuation } }
          return !runs.isEmpty
        }
        if already { continuation.resume() }
      }
    }
  }

  /// Blocks the calling (main) thread until `work`, run on a background thread, has returned.
  private func blockUntilReturned(_ work: @escaping @Sendable () -> Void) {
    let returned = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      work()
      returned.signal()
    }
    returned.wait()
  }

  func testAskedOnTheMainThreadItRunsThereAtOnce() {
    XCTAssertTrue(Thread.isMainThread)
    let recording = Recording()
    let registration = recording.registration()
    registration.request()
    XCTAssertTrue(registration.isDone, "ran before request() returned")
    XCTAssertEqual(recording.runs.withLock { $0 }, [true])
  }

  func testFirstAskedFromABackgroundThreadItRunsOnTheMainThreadOnce() async {
    XCTAssertFalse(Thread.isMainThread, "an async test's body runs off the main thread")
    let recording = Recording()
    let registration = recording.registration()
    registration.request()
    registration.request()
    await recording.waitUntilRun()
    registration.request()
    XCTAssertEqual(recording.runs.withLock { $0 }, [true])
  }

  func testAskedFromABackgroundThreadWhileTheMainThreadIsBlockedItDoesNotDeadlock() {
    let recording = Recording()
    let registration = recording.registration()
    // The main thread waits for the background request to return, as a test waiting on a
    // semaphore for its work would: a request that waited for the main thread never returns.
    blockUntilReturned { registration.request() }
    XCTAssertFalse(registration.isDone, "the main queue has not run since")
    while !registration.isDone {
      _ = RunLoop.current.run(mode: .default, before: .distantFuture)
    }
    XCTAssertEqual(recording.runs.withLock { $0 }, [true], "ran once the main thread was free")
  }

  func testARequestOnTheMainThreadCompletesOneStillWaitingForTheMainQueue() {
    let recording = Recording()
    let held = Mutex<[@Sendable () -> Void]>([])
    let registration = recording.registration(onMainQueue: { work in
      held.withLock { $0.append(work) }
    })
    blockUntilReturned { registration.request() }
    XCTAssertFalse(registration.isDone)
    registration.request()
    XCTAssertTrue(registration.isDone)
    for work in held.withLock({ $0 }) { work() }
    XCTAssertEqual(recording.runs.withLock { $0 }, [true], "once, on the main thread")
  }
}
