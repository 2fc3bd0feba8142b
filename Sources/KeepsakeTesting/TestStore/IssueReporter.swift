import Testing
import XCTest

/// Reports test failures where the running test framework will see them: a Swift Testing
/// issue inside a Swift Testing test, an `XCTFail` otherwise.
struct IssueReporter: Sendable {
  /// Where the failure is reported: the line of the `send`, `receive` or `assert` call.
  struct Location: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt
  }

  /// Also receives every known issue, so this module's own tests can check that a skipped
  /// assertion was shown (Swift Testing offers no way to observe a known issue).
  @TaskLocal static var knownIssueObserver: (@Sendable (String) -> Void)?

  func report(_ message: String, at location: Location) {
    if Test.current != nil {
      Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
    } else {
      XCTFail(message, file: location.filePath, line: location.line)
    }
  }

  /// Reports a failure with no place of its own in the test's code.
  func report(_ message: String) {
    if Test.current != nil {
      Issue.record(Comment(rawValue: message))
    } else {
      XCTFail(message)
    }
  }

  /// Reports something a test chose not to assert: a known issue, which does not fail the test.
  func reportKnown(_ message: String, at location: Location) {
    Self.knownIssueObserver?(message)
    if Test.current != nil {
      withKnownIssue {
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
      }
    } else {
      // NB: XCTest on Linux has no `XCTExpectFailure`; a known issue can only be shown.
      print("\(location.fileID):\(location.line): known issue: \(message)")
    }
  }
}

extension IssueReporter.Location {
  fileprivate var sourceLocation: SourceLocation {
    SourceLocation(
      fileID: String(describing: fileID), filePath: String(describing: filePath),
      line: Int(line), column: Int(column))
  }
}
