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

  func report(_ message: String, at location: Location) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: String(describing: location.fileID),
          filePath: String(describing: location.filePath),
          line: Int(location.line),
          column: Int(location.column)))
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
}
