import Foundation

/// A preferences suite that could not be read; it is left untouched.
public enum PreferencesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The suite file exists but is not a valid preferences file.
  case unreadable(path: String, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let reason):
      return
        "The preferences file \(path) could not be read (\(reason)). It has been left untouched "
        + "and no changes are written to it until it is repaired or removed."
    }
  }
}

extension PreferencesError: DescribesUntouchedData {
  var saysDataIsUntouched: Bool { true }
}
