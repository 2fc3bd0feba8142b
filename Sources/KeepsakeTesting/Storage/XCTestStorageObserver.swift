import Foundation
import Keepsake
import Synchronization
import XCTest

/// Gives every XCTest case a storage context of its own.
///
/// XCTest exports no "current test", so `Keepsake` asks for this observer (by its C name, with
/// `dlsym`) the first time a key is used in a process that runs XCTest. XCTest runs one test
/// case at a time in a process, so one current context suffices.
final class XCTestStorageObserver: NSObject, XCTestObservation, Sendable {
  private let current = Mutex<StorageContext?>(nil)

  /// Starts observing; `inProgress` gives the test already running a context of its own.
  static func install(inProgress: Bool) {
    let observer = XCTestStorageObserver()
    if inProgress { observer.current.withLock { $0 = .ephemeral(name: "XCTest case") } }
    StorageContext.xcTestContextProvider.withLock { provider in
      provider = { observer.current.withLock { $0 } }
    }
    XCTestObservationCenter.shared.addTestObserver(observer)
  }

  func testCaseWillStart(_ testCase: XCTestCase) {
    current.withLock { $0 = .ephemeral(name: "XCTest \(testCase.name)") }
  }

  func testCaseDidFinish(_ testCase: XCTestCase) {
    current.withLock { $0 = nil }
  }
}

/// Called by `Keepsake` through `dlsym` the first time it needs the current XCTest case.
@_cdecl("keepsake_testing_install_xctest_observer")
public func keepsakeTestingInstallXCTestObserver() {
  // NB: XCTest observation is main-thread API on Apple platforms; on Linux it is not isolated.
  XCTestStorageObserver.install(inProgress: true)
}
