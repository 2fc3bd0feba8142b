import Foundation
import Keepsake
import Testing

extension FormatDrift {
  /// Runs ``check(_:sample:name:in:record:)`` and records a Swift Testing issue when it fails.
  ///
  /// From XCTest, call ``check(_:sample:name:in:record:)`` and `XCTFail` its
  /// ``FormatDriftResult/failureMessage``.
  @discardableResult
  public static func expectNoDrift<Format: VersionedFormat>(
    _ format: Format.Type,
    sample: Format.Value,
    name: String,
    in directory: URL,
    record: Bool = FormatRecordMode.isOn,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> FormatDriftResult? {
    do {
      let result = try check(format, sample: sample, name: name, in: directory, record: record)
      if let message = result.recordedMessage(in: directory) {
        // NB: recording is a deliberate act with files to commit: said, never silent.
        print(message)
        Issue.record(Comment(rawValue: message), severity: .warning, sourceLocation: sourceLocation)
      }
      if let message = result.failureMessage {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
      }
      return result
    } catch {
      Issue.record(error, "The drift check could not run.", sourceLocation: sourceLocation)
      return nil
    }
  }
}
