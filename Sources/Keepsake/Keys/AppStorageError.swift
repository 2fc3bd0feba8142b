/// A preference that holds a value of another type than its key expects.
///
/// Its `description` names the preference and the type it holds, never the value, which is the
/// user's; `debugDescription` and the case's `stored` value have it.
public enum AppStorageError: Error, Equatable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The stored value cannot be read as the key's type.
  case unexpectedType(key: String, stored: PreferenceValue)

  public var description: String {
    switch self {
    case .unexpectedType(let key, let stored):
      return
        "the preference '\(key)' holds \(stored.typeDescription), which is not of the expected "
        + "type."
    }
  }

  /// ``description``, then the stored value itself: for logs a developer reads.
  public var debugDescription: String {
    switch self {
    case .unexpectedType(_, let stored): "\(description) Stored value: \(stored)"
    }
  }
}
