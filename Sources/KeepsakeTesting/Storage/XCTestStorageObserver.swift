import Foundation
@_spi(Testing) import Keepsake
import Synchronization
import XCTest

/// `Keepsake` installs the observer below through this conformance (see `TestSupportHook`).
extension TestSupportHook: XCTestStorageSupport {
  public static func install(inProgress: Bool) {
    XCTestStorageObserver.install(inProgress: inProgress)
  }
}

/// Gives every XCTest case a storage context of its own.
///
/// XCTest exports no "current test", so `Keepsake` installs this observer (through its
/// `TestSupportHook`) the first time a key is used in a process that runs XCTest, or, in a hosted
/// test run, the first time one is used after the test bundle loaded. XCTest runs one test case
/// at a time in a process; a test that runs a suite of its own nests its cases, so the contexts
/// form a stack and the outer test gets its own back.
///
/// Darwin's XCTest accepts observers only on the main thread, and the first key may be made on
/// any thread (an async test, a background queue), so the observer is added through
/// ``MainThreadRegistration``: at once on the main thread, else on the main queue without waiting
/// for it. Until then, the case in progress has the context made at installation.
final class XCTestStorageObserver: NSObject, XCTestObservation, Sendable {
  /// The contexts of the running test cases, innermost last: a test may run a suite of its own.
  private let current = Mutex<[StorageContext]>([])

  /// Starts observing; `inProgress` gives the test already running a context of its own.
  static func install(inProgress: Bool) {
    let observer = XCTestStorageObserver()
    if inProgress {
      // NB: XCTest has no "current case" to ask: the work that asked may be a case in progress,
      // or (once Swift Testing runs, in the same process) a detached task of no test at all.
      // So keys made here are treated as unattributed: reported once a Swift Testing test has
      // been seen, never during XCTest's own run.
      let context = StorageContext.inMemory(
        name: "XCTest case", fileSystem: InMemoryFileSystem(),
        unattributedSince: { TestDetector.process.hasSeenATest })
      observer.current.withLock { $0 = [context] }
    }
    let registration = MainThreadRegistration {
      // NB: `assumeIsolated` because the registration runs on the main thread by construction,
      // and an SDK that marks XCTest's observation center main-actor isolated needs to know.
      MainActor.assumeIsolated { XCTestObservationCenter.shared.addTestObserver(observer) }
    }
    StorageContext.xcTestContextProvider.withLock { provider in
      provider = {
        // A request made on the main thread registers there and then, when the main queue has
        // not got to it yet.
        registration.request()
        return observer.current.withLock { $0.last }
      }
    }
    registration.request()
  }

  func testCaseWillStart(_ testCase: XCTestCase) {
    current.withLock { $0.append(.inMemory(name: "XCTest \(testCase.name)")) }
  }

  func testCaseDidFinish(_ testCase: XCTestCase) {
    current.withLock { _ = $0.popLast() }
  }

  /// When XCTest's cases are over, none is running: a context left from a case whose start this
  /// observer did not see (it was installed, or registered, during it) must not outlive it, or
  /// work after XCTest (Swift Testing's detached tasks, in the same process) would land in it.
  func testBundleDidFinish(_ testBundle: Bundle) {
    current.withLock { $0 = [] }
  }
}
