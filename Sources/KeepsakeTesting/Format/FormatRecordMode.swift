import Foundation

/// Whether format checks record (write shapes and new fixtures) instead of comparing.
///
/// Turn it on for one run with the environment variable `KEEPSAKE_RECORD_FORMAT=1`:
///
/// ```
/// KEEPSAKE_RECORD_FORMAT=1 swift test --filter Drift
/// ```
///
/// Recording writes the current version's shape file, and its golden fixture only when none exists
/// (an existing fixture is never overwritten), appending the fixture's line to `fixtures.lock`.
public enum FormatRecordMode {
  /// The environment variable that turns recording on.
  public static let environmentVariable = "KEEPSAKE_RECORD_FORMAT"

  /// The command to run, for messages.
  public static let command = "KEEPSAKE_RECORD_FORMAT=1 swift test --filter Drift"

  /// `true` when the environment variable is `1`, `true` or `yes`.
  public static var isOn: Bool {
    let value = ProcessInfo.processInfo.environment[environmentVariable]?.lowercased()
    return ["1", "true", "yes"].contains(value ?? "")
  }
}
