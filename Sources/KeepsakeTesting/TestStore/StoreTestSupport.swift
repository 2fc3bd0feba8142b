import FaultInjection
import KeepsakeStore

/// What `KeepsakeStore` needs from a test but may not link: the test framework's issues and
/// FaultInjection's manual clock.
///
/// `KeepsakeStore` finds this type by its mangled name when the process runs tests (see
/// `_KeepsakeStoreTestSupport`), so linking `KeepsakeTesting` is all a test target does.
enum StoreTestSupport: _KeepsakeStoreTestSupport {
  static func reportIssue(
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

  static func makeManualClock() -> any Clock<Duration> {
    ManualClock()
  }
}
