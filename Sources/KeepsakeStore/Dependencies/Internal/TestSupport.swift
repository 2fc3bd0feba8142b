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

/// Where `KeepsakeStore` finds `KeepsakeTesting`'s support: never looked for in an app or a
/// preview; in a test process looked for until found, then kept.
///
/// In a hosted test run the host app starts, and may read dependencies, before the test bundle
/// brings `KeepsakeTesting` in, so a miss is retried (once the process has loaded code since,
/// where the platform tells: see `RetryingLookup`) rather than kept for good.
struct TestSupportLocator: Sendable {
  private let lookup: RetryingLookup<any KeepsakeStoreTestSupport.Type>?

  /// A locator for a process of the kind `runContext`.
  ///
  /// - Parameters:
  ///   - runContext: The kind of process; only a test process looks.
  ///   - generation: A number that changes when the process loads code, or `nil` where the
  ///     platform does not tell.
  ///   - lookup: Finds the support, or `nil` while it is not loaded.
  init(
    runContext: RunContext,
    generation: @escaping @Sendable () -> UInt64?,
    lookup: @escaping @Sendable () -> (any KeepsakeStoreTestSupport.Type)?
  ) {
    self.lookup =
      runContext == .test ? RetryingLookup(generation: generation, lookup: lookup) : nil
  }

  /// The support, once `KeepsakeTesting` is loaded into a test process.
  var installed: (any KeepsakeStoreTestSupport.Type)? {
    lookup?.value
  }
}

/// The test support `KeepsakeTesting` provides, when it is part of the process.
enum TestSupport {
  static let process = TestSupportLocator(
    runContext: TestDetector.runContext,
    generation: TestDetector.Probes.system.loadedCodeGeneration,
    lookup: { (TestSupportHook.self as Any.Type) as? any KeepsakeStoreTestSupport.Type })

  /// The support, once `KeepsakeTesting` is loaded into a test process.
  static var installed: (any KeepsakeStoreTestSupport.Type)? { process.installed }
}
