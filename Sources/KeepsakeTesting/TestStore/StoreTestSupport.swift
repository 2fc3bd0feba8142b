import FaultInjection
@_spi(Testing) import Keepsake
@_spi(Testing) import KeepsakeStore

/// What `KeepsakeStore` needs from a test but may not link: the test framework's issues and
/// FaultInjection's manual clock.
///
/// `KeepsakeStore` finds this conformance with a cast when the process runs tests (see
/// `TestSupportHook` in Keepsake), so linking `KeepsakeTesting` is all a test target does.
extension TestSupportHook: KeepsakeStoreTestSupport, TestIssueReporting {
  public static func reportIssue(
    _ message: String, fileID: StaticString?, filePath: StaticString?, line: UInt, column: UInt
  ) {
    if let fileID, let filePath {
      IssueReporter().report(
        message,
        at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
    } else {
      IssueReporter().report(message)
    }
  }

  public static func makeManualClock() -> any Clock<Duration> {
    ManualClock()
  }
}
