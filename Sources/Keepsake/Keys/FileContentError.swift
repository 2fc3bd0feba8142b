/// Why a file's content was rejected before decoding.
public enum FileContentError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file exists but has no bytes, though a saved value is never empty.
  case empty

  public var description: String {
    switch self {
    case .empty: return "the file is empty, though a saved value never is."
    }
  }
}
