import Foundation

/// The outcome of a drift check; ``failureMessage`` is `nil` when the check passes.
public enum FormatDriftResult: Equatable, Sendable {
  /// The encoding has the recorded shape of the current version.
  case unchanged(version: Int)
  /// The encoding's shape changed but the version did not.
  case changed(version: Int, changes: [ShapeChange])
  /// No shape is recorded for the current version (it was bumped, or never recorded).
  case notRecorded(version: Int)
  /// Record mode wrote the shape (and fixture, if new) of `version`.
  case recorded(version: Int, files: [String])

  /// What record mode wrote and what to do with it, or `nil` when nothing was recorded.
  public func recordedMessage(in directory: URL) -> String? {
    guard case .recorded(let version, let files) = self else { return nil }
    return "Recorded format version \(version) in \(directory.path): "
      + files.joined(separator: ", ")
      + ". Check them, then commit them (a new fixture with its line in fixtures.lock)."
  }

  /// What went wrong and what to do, or `nil` when the check passes.
  public var failureMessage: String? {
    switch self {
    case .unchanged, .recorded:
      return nil
    case .notRecorded(let version):
      return """
        No shape is recorded for format version \(version). If you just bumped currentVersion \
        (and added its migration), record the new version's shape and golden fixture:
          \(FormatRecordMode.command)
        then commit the new files and their line in fixtures.lock.
        """
    case .changed(let version, let changes):
      let list = changes.map { "  - \($0)" }.joined(separator: "\n")
      return """
        The stored format changed but currentVersion is still \(version):
        \(list)
        Files already written as version \(version) have the old shape. Either:
          - bump currentVersion, add a migration from version \(version), and record the new \
        version with \(FormatRecordMode.command); or
          - if old files still decode unchanged (the new field is optional or @Defaulted, and \
        nothing was removed, renamed or retyped), re-record version \(version)'s shape with the \
        same command.
        """
    }
  }
}
