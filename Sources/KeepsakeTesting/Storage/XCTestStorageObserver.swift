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
/// `TestSupportHook`) the first time a key is used in a process that runs XCTest. XCTest runs one
/// test case at a time in a process; a test that runs a suite of its own nests its cases, so
/// the contexts form a stack and the outer test gets its own back.
final class XCTestStorageObserver: NSObject, XCTestObservation, Sendable {
  /// The contexts of the running test cases, innermost last: a test may run a suite of its own.
  private let current = Mutex<[StorageContext]>([])

  /// Starts observing; `inProgress` gives the test already running a context of its own.
  static func install(inProgress: Bool) {
    let observer = XCTestStorageObserver()
    if inProgress { observer.current.withLock { $0 = [.inMemory(name: "XCTest case")] } }
    StorageContext.xcTestContextProvider.withLock { provider in
      provider = { observer.current.withLock { $0.last } }
    }
    XCTestObservationCenter.shared.addTestObserver(observer)
  }

  func testCaseWillStart(_ testCase: XCTestCase) {
    current.withLock { $0.append(.inMemory(name: "XCTest \(testCase.name)")) }
  }

  func testCaseDidFinish(_ testCase: XCTestCase) {
    current.withLock { _ = $0.popLast() }
  }
}
