/// What the envelope of a stored file says, without decoding its content.
///
/// Returned by ``VersionedFormat/version(of:)`` for diagnostics and tests. Its description reads:
///
/// ```
/// format version 2 (envelope); will be migrated to version 3 when read
/// ```
package struct FormatVersionInfo: Equatable, Sendable, CustomStringConvertible {
  /// How the file is laid out.
  enum Layout: Equatable, Sendable {
    /// `{"content": ..., "version": N}`.
    case envelope
    /// The bare value, written before the app adopted versioning.
    case bare
  }

  /// The layout, or `nil` when the bytes are not JSON or the envelope is invalid.
  var layout: Layout?
  /// The version a read starts from.
  ///
  /// The envelope's version, or the format's legacy version for a bare file; `nil` when it
  /// cannot be determined.
  package var version: Int?
  /// The version this app reads and writes.
  var currentVersion: Int
  /// Why a read would fail before looking at the content, or `nil` when it would proceed.
  var problem: FormatError?

  /// Creates a report; tools normally get one from ``VersionedFormat/version(of:)``.
  init(layout: Layout?, version: Int?, currentVersion: Int, problem: FormatError?) {
    self.layout = layout
    self.version = version
    self.currentVersion = currentVersion
    self.problem = problem
  }

  /// Whether a read would migrate the content (and the next save would rewrite it as current).
  var needsMigration: Bool {
    guard problem == nil, let version else { return false }
    return version < currentVersion
  }

  /// One line for a person: the version, the layout and what reading would do.
  package var description: String {
    if let problem {
      if case .versionFromFuture(let found, let supported) = problem {
        return "format version \(found) (envelope), newer than this app's \(supported); "
          + "cannot be read and will be left untouched"
      }
      return "unreadable: \(problem.description)"
    }
    let version = version ?? currentVersion
    let layout = layout == .bare ? "no envelope, read as legacy version \(version)" : "envelope"
    let head = layout == "envelope" ? "format version \(version) (envelope)" : layout
    return version < currentVersion
      ? "\(head); will be migrated to version \(currentVersion) when read"
      : "\(head); current"
  }
}
