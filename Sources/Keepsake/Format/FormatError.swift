/// Why a stored file could not be read as a ``VersionedFormat``.
///
/// Every case means the same thing for the user's data: **the file was not changed**. Reading
/// never writes, and Keepsake's keys never save over a file they could not read (the
/// data-safety rules "A file Keepsake cannot read is never overwritten" and "A version from the
/// future is refused, not guessed"). The `description` says what happened, where, and what the
/// app or a person supporting it can do; it names JSON types and paths but never the user's
/// values. The decoder's own detail, which may quote a value, is kept in the case
/// (``DecodingProblem/invalidValue(_:)``) and added by `debugDescription`.
///
/// It is an enum so callers can switch over it, for example to show a dedicated message for a file
/// from a newer version:
///
/// ```swift
/// do {
///   drafts = try DraftsFormat.decode(data)
/// } catch .versionFromFuture(let found, _) {
///   showUpdateAppBanner(fileVersion: found)
/// } catch {
///   showUnreadableFile(error.description)
/// }
/// ```
///
/// > Important: New cases may be added in minor releases. Switches over `FormatError` outside
/// > Keepsake should keep a `default:` branch.
public enum FormatError: Error, Equatable, Sendable {
  /// The bytes are not a JSON document: empty, truncated, binary or another format.
  ///
  /// `byteCount` is the size of the data; `reason` and `offset` say where parsing stopped.
  case notJSON(byteCount: Int, offset: Int, reason: String)

  /// The top level is an object with a `"version"` key, but not a valid envelope.
  case invalidEnvelope(EnvelopeProblem)

  /// The top level is not an envelope, and the format declares no ``VersionedFormat/legacyVersion``
  /// to read such files as. `topLevel` is the JSON type found ("an array").
  case missingLegacyVersion(topLevel: String)

  /// The file was written by a newer version of the app, in a format version this one does not
  /// know. It must not be guessed at or replaced.
  case versionFromFuture(found: Int, supported: Int)

  /// The file's version is older than the oldest version the format still declares.
  case versionTooOld(found: Int, oldest: Int)

  /// The content does not match the model of the version the file declares.
  ///
  /// `codingPath` is rendered from the file's root (`content[3].pinned`).
  case decodingFailed(version: Int, codingPath: String, problem: DecodingProblem)

  /// A migration step could not carry the content from version `from` to `to`.
  ///
  /// `codingPath` is rendered from the file's root (`content[3].text`).
  case migrationFailed(from: Int, to: Int, codingPath: String, reason: String)
}

extension FormatError {
  /// What is wrong with an envelope.
  public enum EnvelopeProblem: Equatable, Sendable, CustomStringConvertible {
    /// `"version"` holds something other than an integer; `found` is its JSON type ("a string").
    case versionNotAnInteger(found: String)
    /// `"version"` is an integer below 1.
    case versionNotPositive(Int)
    /// There is a `"version"` but no `"content"` key.
    case missingContent

    /// The problem in a sentence fragment, as in `"version" is a string, not an integer`.
    public var description: String {
      switch self {
      case .versionNotAnInteger(let found): "\"version\" is \(found), not an integer"
      case .versionNotPositive(let version): "\"version\" is \(version); versions start at 1"
      case .missingContent: "it has a \"version\" but no \"content\""
      }
    }
  }

  /// What was wrong at the failing path, from a `DecodingError`.
  public enum DecodingProblem: Equatable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible
  {
    /// A value of another JSON type was found; `found` is `nil` when it could not be determined.
    case typeMismatch(expected: String, found: String?)
    /// A required key is absent.
    case missingKey
    /// `null` was found where a value is required.
    case missingValue(expected: String)
    /// The value has the right JSON type but is not valid (a malformed UUID, an unknown enum case).
    ///
    /// `detail` is the decoder's account of it, which may quote the value: it is left out of
    /// ``description`` and shown by ``debugDescription``.
    case invalidValue(String)

    /// The problem in a sentence fragment, as in `expected Bool but found a string`; never the
    /// stored value.
    public var description: String {
      switch self {
      case .typeMismatch(let expected, let found?): "expected \(expected) but found \(found)"
      case .typeMismatch(let expected, nil): "expected \(expected) (type mismatch)"
      case .missingKey: "the key is missing"
      case .missingValue(let expected): "expected \(expected) but found null"
      case .invalidValue: "the value is not valid"
      }
    }

    /// ``description``, then the decoder's detail of an invalid value, which may quote the value.
    public var debugDescription: String {
      switch self {
      case .invalidValue(let detail) where !detail.isEmpty: "\(description) (\(detail))"
      default: description
      }
    }
  }
}

extension FormatError: CustomStringConvertible {
  /// What happened, where, and that the file was left untouched, in words for people.
  ///
  /// What a developer can change (a migration, the format's declarations) is in
  /// ``debugDescription``.
  public var description: String { message(detailed: false) }

  /// The message; `detailed` adds the decoder's detail of an invalid value and the developer's
  /// advice.
  private func message(detailed: Bool) -> String {
    let advice = detailed ? developerAdvice.map { " " + $0 } ?? "" : ""
    switch self {
    case .notJSON(let byteCount, let offset, let reason):
      return "The file is not JSON (\(byteCount) bytes; \(reason) at byte \(offset)): it may be "
        + "empty, truncated or in another format. Keepsake left it untouched." + advice
    case .invalidEnvelope(let problem):
      return "The file has an invalid version envelope: \(problem). Keepsake left it untouched."
        + advice
    case .missingLegacyVersion(let topLevel):
      return "The file has no version envelope (its top level is \(topLevel)), so this version "
        + "of the app cannot tell which version wrote it. Keepsake left it untouched." + advice
    case .versionFromFuture(let found, let supported):
      return "The file was written by a newer version of the app (format version \(found); "
        + "this version reads up to \(supported)). It has been left untouched: update the app "
        + "to read it." + advice
    case .versionTooOld(let found, let oldest):
      return "The file has format version \(found), older than the oldest version this app "
        + "can read (\(oldest)). Keepsake left it untouched." + advice
    case .decodingFailed(let version, let codingPath, let problem):
      return "The file could not be decoded as format version \(version) at \(codingPath): "
        + "\(detailed ? problem.debugDescription : problem.description). Keepsake left it "
        + "untouched." + advice
    case .migrationFailed(let from, let to, let codingPath, let reason):
      return "Migration \(from)→\(to) failed at \(codingPath): \(reason). Keepsake left the "
        + "file untouched (still version \(from))." + advice
    }
  }

  /// What a developer can do about it, when the app's code can.
  private var developerAdvice: String? {
    switch self {
    case .notJSON: nil
    case .invalidEnvelope:
      "An envelope is {\"version\": <integer from 1>, \"content\": <JSON>}."
    case .missingLegacyVersion:
      "If earlier versions of the app wrote unversioned files, declare legacyVersion."
    case .versionFromFuture: nil
    case .versionTooOld:
      "Add the missing versions to the format's migrations."
    case .decodingFailed:
      "If this app wrote it, the model changed without a version bump: restore the old shape "
        + "or add a migration."
    case .migrationFailed:
      "Fix the migration step and add a fixture that reproduces this file."
    }
  }
}

extension FormatError: CustomDebugStringConvertible {
  /// ``description``, with the decoder's detail of an invalid value, which may quote the user's
  /// value, and what a developer can change: for logs a developer reads, not for messages shown
  /// to people.
  public var debugDescription: String { message(detailed: true) }
}

extension FormatError: DescribesUntouchedData {
  /// Every case says the file was left untouched (rule "A file Keepsake cannot read is never
  /// overwritten, truncated or deleted by Keepsake").
  var saysDataIsUntouched: Bool { true }
}
