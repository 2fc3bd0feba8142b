import Foundation
import Keepsake
import Synchronization
import XCTest

/// Gives every XCTest case a storage context of its own.
///
/// XCTest exports no "current test", so `Keepsake` installs this observer (found by its type
/// name at run time) the first time a key is used in a process that runs XCTest. XCTest runs one test
/// case at a time in a process, so one current context suffices.
final class XCTestStorageObserver: NSObject, XCTestObservation, _XCTestStorageSupport, Sendable {
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
