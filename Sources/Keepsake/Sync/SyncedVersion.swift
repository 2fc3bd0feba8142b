import Foundation

/// Another device's version of a file, as a ``SharedConflict`` reports it: where it came from and
/// what it was merged against.
///
/// When two devices change a file in a synced folder while apart, the sync engine keeps one
/// version under the file's name and the other beside it as a conflict copy. A file key merges
/// the copy into the file with the value's ``SharedMerge``, writes the result durably and only
/// then removes the copy; a copy that cannot merge or cannot be read stays where it is. Either
/// way ``Shared/lastConflict`` reports it, with this value in ``SharedConflict/otherDevice``:
///
/// ```swift
/// if let conflict = $drafts.lastConflict, let other = conflict.otherDevice,
///   case .conflictCopy(let copy, let engine) = other.origin
/// {
///   log("merged \(engine)'s copy \(copy.lastPathComponent), base: \(other.base)")
/// }
/// ```
public struct SyncedVersion: Sendable, Equatable {
  /// Where the other device's version was found.
  public enum Origin: Sendable, Equatable {
    /// A conflict copy the engine put beside the file (for iCloud Drive, the URL of the
    /// unresolved `NSFileVersion`).
    case conflictCopy(URL, engine: SyncEngine)
    /// A save of this device that a version from another device replaced without including it
    /// (an engine that overwrote the file instead of keeping a copy, or raced with the save),
    /// taken back from this device's own history (see "Devices" in the Data safety article).
    case overwrittenSave
  }

  /// What the merge took as the version both sides started from.
  public enum MergeBase: Sendable, Equatable, CustomStringConvertible {
    /// Their newest common version, named by the ancestry the file carries: the merge keeps
    /// every change of both sides, and only a part both changed is decided by the merge's policy.
    case newestCommonVersion
    /// An older common version: the newest one was not kept on this device, and no device that
    /// kept it merged the copy within the wait. Changes made since it look like changes of both
    /// sides: a part one side changed after the other changed it is decided by the policy, and
    /// listed in ``SharedConflict/Resolution/merged(overlapping:)``; so is an element only one
    /// side holds and the base lacks, which is kept (one side added it, or the other added and
    /// deleted it since).
    case olderCommonVersion
    /// A plain JSON file carries no ancestry: the base is this device's best guess, the version
    /// it last received from elsewhere. Right when devices take turns; otherwise a deletion may
    /// come back, and a part both sides hold differently, or an element only one side holds,
    /// is decided by the policy and listed.
    case guessed
    /// No common version is known (a first launch against a file that already has a conflict
    /// copy, say), or none is kept on this device and no device that keeps one merged the copy
    /// within the wait: merged against the key's default value, so a deletion made on one side
    /// comes back; the parts both sides hold differently, and the elements only one side holds,
    /// are decided by the policy and listed.
    case missing
    /// Nothing was merged: the copy was kept as it is.
    case notNeeded

    public var description: String {
      switch self {
      case .newestCommonVersion: return "their newest common version"
      case .olderCommonVersion: return "an older common version"
      case .guessed: return "this device's best guess (a plain JSON file carries no ancestry)"
      case .missing: return "no common version this device keeps (the key's default)"
      case .notNeeded: return "none"
      }
    }
  }

  /// Where the other device's version came from.
  public var origin: Origin
  /// What it was merged against.
  public var base: MergeBase

  /// A conflict report's sentence about this version.
  func describe(_ resolution: SharedConflict.Resolution, of what: String) -> String {
    let source: String
    switch origin {
    case .conflictCopy(let copy, let engine):
      source = "another device, whose version \(engine) kept as \(copy.path),"
    case .overwrittenSave:
      source = "another device, whose version replaced a save of this device without including it,"
    }
    switch resolution {
    case .merged(let overlapping):
      let decided =
        overlapping.isEmpty
        ? ""
        : "; \(overlapping.count) part(s) were decided by the merge's policy "
          + "(\(overlapping.prefix(5).joined(separator: ", "))\(overlapping.count > 5 ? ", …" : ""))"
      return
        "\(what) was changed by \(source) and both versions were merged against \(base)"
        + "\(decided)."
    case .keptBoth(let copy):
      return
        "\(what) was changed by \(source) and the two versions cannot be merged: both are kept, "
        + "the other one as \(copy.path)."
    case .notMerged(let reason):
      return
        "\(what) was changed by \(source) but that version could not be read and was not "
        + "merged: \(reason) It is left as it is."
    case .deletedElsewhere:
      return "\(what) was deleted by \(source) and saved again so nothing is lost."
    }
  }
}
