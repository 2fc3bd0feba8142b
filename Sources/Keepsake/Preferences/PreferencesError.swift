import Foundation

/// A preferences suite that could not be read; it is left untouched.
public enum PreferencesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The suite file exists but is not a valid preferences file.
  case unreadable(path: String, reason: String)
  /// One key's value in the suite file cannot be read (a newer version of the app may store a
  /// kind of value this one does not know); the suite's other keys are read and written.
  case unreadableValue(path: String, key: String, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let reason):
      return
        "The preferences file \(path) could not be read (\(reason)). It has been left untouched "
        + "and no changes are written to it until it is repaired or removed."
    case .unreadableValue(let path, let key, let reason):
      return
        "The value of \"\(key)\" in the preferences file \(path) could not be read (\(reason)). "
        + "It has been left untouched, and this key's changes are not written over it; the other "
        + "keys are read and saved as usual."
    }
  }
}

extension PreferencesError: DescribesUntouchedData {
  var saysDataIsUntouched: Bool { true }
}
