import Foundation
import Testing

extension FixtureLock {
  /// Records a Swift Testing issue for every fixture in `directory` that differs from the lock.
  public static func expectUnchanged(
    in directory: URL,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for problem in problems(in: directory) {
      Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
  }
}
