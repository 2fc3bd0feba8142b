import Foundation

/// Why a shared value could not be loaded: the stored data exists but could not be read.
///
/// While a key has a load error it is *protected*: automatic saves do not touch the stored data
/// and explicit saves throw ``SharedSaveError/protected(_:)`` (DESIGN.md, rule 1).
public struct SharedLoadError: Error, Sendable, CustomStringConvertible {
  /// The key whose data could not be read.
  public var key: SharedKeyID
  /// The file, for file keys.
  public var url: URL?
  /// The underlying error: a ``FileSystemError``, a decoding error, a format error.
  public var underlying: any Error

  /// Creates a load error.
  package init(key: SharedKeyID, url: URL? = nil, underlying: any Error) {
    self.key = key
    self.url = url
    self.underlying = underlying
  }

  /// Why the data could not be read, in a sentence: the failing coding path, version or
  /// file operation.
  public var reason: String { SharedLoadError.describe(underlying) }

  public var description: String {
    let what = url.map { "The file \($0.path)" } ?? "The stored value of \(key)"
    let reason = self.reason
    // Format errors already say the file was left untouched and why; do not say it twice.
    let untouched =
      reason.contains("untouched")
      ? "" : " It has been left untouched: changes stay in memory and are not saved over it."
    return
      "\(what) could not be read: \(reason)\(untouched) Fix or restore the file, or call "
      + "replaceUnreadableData() to set the damaged data aside and start over."
  }

  /// A readable account of a decoding error, naming the coding path.
  static func describe(_ error: any Error) -> String {
    guard let decodingError = error as? DecodingError else {
      let text = String(describing: error)
      return text.hasSuffix(".") ? text : text + "."
    }
    func path(_ context: DecodingError.Context) -> String {
      let components = context.codingPath.map { key in
        key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
      }
      let joined = components.joined()
      let trimmed = joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
      return trimmed.isEmpty ? "the top level" : trimmed
    }
    switch decodingError {
    case .typeMismatch(let type, let context):
      return "expected \(type) at \(path(context)) (\(context.debugDescription))"
    case .valueNotFound(let type, let context):
      return "expected \(type) but found null at \(path(context))."
    case .keyNotFound(let key, let context):
      return "missing key '\(key.stringValue)' at \(path(context))."
    case .dataCorrupted(let context):
      return "the data is not valid at \(path(context)) (\(context.debugDescription))"
    @unknown default:
      return String(describing: decodingError)
    }
  }
}

/// Why a shared value could not be saved.
public enum SharedSaveError: Error, Sendable, CustomStringConvertible {
  /// The stored data could not be read, so it is protected from being overwritten.
  case protected(SharedLoadError)
  /// Writing failed; the previously stored data is intact.
  case writeFailed(key: SharedKeyID, underlying: any Error)

  public var description: String {
    switch self {
    case .protected(let loadError):
      return "Not saved, to protect data that could not be read. \(loadError)"
    case .writeFailed(let key, let underlying):
      return
        "Could not save \(key): \(underlying) The previously saved data is intact; the change "
        + "is kept in memory and saved again on the next change or flush."
    }
  }
}
