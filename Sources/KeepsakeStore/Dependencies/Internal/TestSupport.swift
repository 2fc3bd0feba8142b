@_spi(Testing) import Keepsake

/// Implemented by `KeepsakeTesting` (on Keepsake's `TestSupportHook`); not for apps.
///
/// It gives `KeepsakeStore` what it cannot link: the test framework's issues and a manual clock.
/// `KeepsakeStore` may not link Testing, XCTest or FaultInjection, so it finds the
/// implementation with a cast at run time, when the process runs tests, the way `Keepsake` finds
/// its XCTest observer. Without `KeepsakeTesting` in the test binary, failures are written to
/// standard error and clocks stay live.
@_spi(Testing) public protocol KeepsakeStoreTestSupport: SendableMetatype {
  /// Records a failure in the running test, at the given place when there is one.
  static func reportIssue(
    _ message: String, fileID: StaticString?, filePath: StaticString?, line: UInt, column: UInt)

  /// A clock that only moves when the test advances it.
  static func makeManualClock() -> any Clock<Duration>
}

/// The test support `KeepsakeTesting` provides, when it is part of the process.
enum TestSupport {
  /// Found once: the conformance never changes while the process runs.
  static let installed: (any KeepsakeStoreTestSupport.Type)? = {
    guard TestDetector.isRunningTests else { return nil }
    return (TestSupportHook.self as Any.Type) as? any KeepsakeStoreTestSupport.Type
  }()
}
