import Foundation

/// Why a shared value could not be loaded: the stored data exists but could not be read.
///
/// While a key has a load error it is *protected*: automatic saves do not touch the stored data
/// and explicit saves throw ``SharedSaveError/protected(_:)`` (the data-safety rule "A file
/// Keepsake cannot read is never overwritten, truncated or deleted by Keepsake"; see the
/// Data safety article).
public struct SharedLoadError: Error, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The identity of the key whose data could not be read.
  public var keyID: SharedKeyID
  /// The file, for file keys.
  public var url: URL?
  /// The underlying error: a ``FileSystemError``, a decoding error, a format error.
  public var underlying: any Error

  /// Creates a load error.
  init(keyID: SharedKeyID, url: URL? = nil, underlying: any Error) {
    self.keyID = keyID
    self.url = url
    self.underlying = underlying
  }

  /// Why the data could not be read, in a sentence: the failing coding path, version or
  /// file operation, never the stored value.
  public var reason: String { ErrorMessage.reason(underlying) + "." }

  /// What could not be read, why, and the one thing a person can do about it; it never names
  /// an API, and it never calls a file from a newer version of the app damaged.
  public var description: String {
    let what = url.map { "The file \($0.path)" } ?? "The stored value of \(keyID)"
    let start = "\(what) could not be read: \(reason)"
    // A path the system cannot take, or a file not downloaded yet, is not fixed by restoring
    // the file: the reason says what is (see FileSystemError).
    if ErrorMessage.isAboutThePath(underlying) { return start }
    // A newer version's file is not damaged: the reason says to update the app.
    if isFromANewerVersion { return start }
    // Format errors and refused bad files already say the data was left untouched.
    let untouched =
      ErrorMessage.saysDataIsUntouched(underlying)
      ? "" : " It has been left untouched, and changes are not saved over it."
    return start + untouched
      + " Restore it from a backup, or start over: the unreadable file is then kept as a copy "
      + "beside it."
  }

  /// Whether the data was written by a newer version of the app.
  private var isFromANewerVersion: Bool {
    if case .versionFromFuture = underlying as? FormatError { return true }
    return false
  }

  /// ``description``, how an app starts over, then the underlying error's own account (a
  /// decoder's detail may quote the stored value, and a format error says what a developer can
  /// change): for logs a developer reads, not for messages shown to people.
  public var debugDescription: String {
    let detail = ErrorMessage.detail(underlying) ?? String(reflecting: underlying)
    let startOver =
      ErrorMessage.isAboutThePath(underlying) || isFromANewerVersion
      ? "" : " To start over, an app calls replaceUnreadableData(), which keeps the file as a copy."
    return "\(description)\(startOver) Underlying error: \(detail)"
  }
}

/// Why a shared value could not be saved.
public enum SharedSaveError: Error, Sendable, CustomStringConvertible {
  /// The stored data could not be read, so it is protected from being overwritten.
  case protected(SharedLoadError)
  /// Writing failed; the previously stored data is intact.
  case writeFailed(keyID: SharedKeyID, underlying: any Error)

  public var description: String {
    switch self {
    case .protected(let loadError):
      return "Not saved, to protect data that could not be read. \(loadError)"
    case .writeFailed(let keyID, let underlying):
      return
        "Could not save \(keyID): \(underlying) The previously saved data is intact; the change "
        + "is kept in memory and saved again on the next change or flush."
    }
  }
}

/// A change made through a reference whose part is gone: an element removed from its
/// collection, an optional set to `nil`.
public struct MissingPartError: Error, Sendable, CustomStringConvertible {
  /// What is missing.
  public var what: String
  /// The identity of the key whose value it was part of.
  public var keyID: SharedKeyID

  public var description: String {
    "\(what) of \(keyID) is gone (removed, or set to nil); the change made through its reference "
      + "was not applied."
  }

  /// Says so as a runtime warning: the change was dropped, not crashed on.
  @usableFromInline func warnDropped() {
    RuntimeWarning.emit(description)
  }
}

/// Why ``Shared/load(_:)`` could not point a `Shared` at another key: it is a projection
/// (`$settings.theme`), whose copies have nothing in common to follow the change.
public struct SharedRebindingError: Error, Sendable, CustomStringConvertible {
  /// The key the projection was to be pointed at.
  public var keyID: SharedKeyID

  public var description: String {
    "A projection cannot be pointed at \(keyID) with load(_:): its copies could not follow. Point "
      + "the Shared it was made from at the key, or assign a new Shared to the property "
      + "($value = Shared(key))."
  }
}

/// A ``MissingPartError`` as a projection's accessor reports it.
///
/// NB: a class, so an accessor returns one word (`nil` on every change that lands) rather than
/// the five of a `MissingPartError?`, written through memory on the path of every projected change.
@usableFromInline
final class PartGone: Sendable {
  @usableFromInline let part: MissingPartError

  init(_ part: MissingPartError) { self.part = part }
}
