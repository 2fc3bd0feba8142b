import Foundation
import Keepsake
import Testing

extension FormatFixtures {
  /// Records a Swift Testing issue for every way the fixtures of `name` in `directory` fail
  /// `Format` (see ``problems(_:name:in:)``).
  ///
  /// From XCTest, `XCTFail` each of ``problems(_:name:in:)``.
  public static func expectAllReadable<Format: VersionedFormat>(
    _ format: Format.Type,
    name: String,
    in directory: URL,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for problem in problems(format, name: name, in: directory) {
      Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
  }
}
