import Foundation

/// What a save found when another process had changed the same stored data, and what it did so that
/// neither side's data was lost (data-safety rule "Processes that share a file lose nothing";
/// see the Data safety article).
///
/// Observe ``Shared/lastConflict`` to tell the person using the app, for example:
///
/// ```swift
/// if let conflict = $drafts.lastConflict, case .keptBoth(let copy) = conflict.resolution {
///   showBanner("Another window changed these notes; its version is kept at \(copy.path)")
/// }
/// ```
public struct SharedConflict: Sendable, Equatable, CustomStringConvertible {
  /// How the conflict was resolved.
  public enum Resolution: Sendable, Equatable {
    /// Both changes were merged (see ``SharedMerge``). `overlapping` names the parts the
    /// merge's policy decided: those changed on both sides; and, for another device's version
    /// merged against a base older than their common version (see ``SyncedVersion/base``), the
    /// elements only one side holds, kept, since one side may have added them or the other
    /// deleted them.
    case merged(overlapping: [String])
    /// The value cannot merge: ours was written, and theirs was first kept at `copy`, beside
    /// the file, where `keepsake quarantined` lists it and `keepsake restore` puts it back.
    case keptBoth(copy: URL)
    /// Another process deleted the stored data while this one had a change to save: ours was
    /// written again, so the change is not lost (delete it again to drop it).
    case deletedElsewhere
    /// Another device's version could not be read, being damaged or written by a newer version
    /// of the app (`reason` says which): it was not merged, and is left where it is, never
    /// removed (see ``otherDevice``). Once a newer app merged it, or a person restored or removed
    /// it, nothing more is needed.
    case notMerged(reason: String)
  }

  /// The identity of the key whose data was changed on both sides.
  public var keyID: SharedKeyID
  /// The file, for file keys.
  public var url: URL?
  /// How it was resolved.
  public var resolution: Resolution
  /// Older conflict copies of the file that were removed to keep their number bounded (at most
  /// 10 per file: the oldest and the newest are kept; see the Data safety article); usually
  /// none.
  public var prunedCopies: [URL]
  /// For a conflict between devices, the other device's version: the sync engine's conflict
  /// copy and how its merge base was found; `nil` when another process of this device changed
  /// the file (see "Devices" in the Data safety article).
  public var otherDevice: SyncedVersion?
  /// For a merge whose ``Resolution/merged(overlapping:)`` parts (fields changed on both sides
  /// to different values) kept ours, the conflict copy that keeps theirs, beside the file;
  /// `nil` otherwise.
  public var copy: URL?
  /// Whether another process resolved the conflict, and this one learns of it from the copy it
  /// kept beside the file: the version in ``Resolution/keptBoth(copy:)``'s copy may be this
  /// process's.
  ///
  /// A reference reports the newest such copy when its key is opened, for as long as the copy
  /// is beside the file, and each one made while it is open.
  public var keptByAnotherProcess: Bool

  /// Creates a conflict report.
  init(
    keyID: SharedKeyID, url: URL?, resolution: Resolution, prunedCopies: [URL] = [],
    otherDevice: SyncedVersion? = nil, copy: URL? = nil, keptByAnotherProcess: Bool = false
  ) {
    self.copy = copy
    self.keptByAnotherProcess = keptByAnotherProcess
    self.keyID = keyID
    self.url = url
    self.resolution = resolution
    self.prunedCopies = prunedCopies
    self.otherDevice = otherDevice
  }

  public var description: String {
    let what = url.map { "The file \($0.path)" } ?? "The stored value of \(keyID)"
    if let otherDevice { return otherDevice.describe(resolution, of: what) }
    switch resolution {
    case .merged(let overlapping) where overlapping.isEmpty:
      return "\(what) was changed by another process; both changes were merged."
    case .merged(let overlapping):
      return
        "\(what) was changed by another process; both changes were merged, and "
        + "\(overlapping.count) part(s) changed on both sides kept one side's version "
        + "(\(overlapping.prefix(5).joined(separator: ", "))\(overlapping.count > 5 ? ", …" : "")"
        + (copy.map { "); the other version is kept as \($0.path)." } ?? ").")
    case .keptBoth(let copy) where keptByAnotherProcess:
      return
        "\(what) was saved by another process over a version it could not merge with (this "
        + "process's, perhaps); that version was kept as \(copy.path)."
    case .keptBoth(let copy):
      let pruned =
        prunedCopies.isEmpty
        ? ""
        : " To keep at most \(Quarantine.conflictCopyLimit) conflict copies, \(prunedCopies.count) older one(s) were removed "
          + "(\(prunedCopies.map(\.lastPathComponent).joined(separator: ", ")))."
      return
        "\(what) was changed by another process and the two versions cannot be merged: this "
        + "process's version was saved, and the other one was kept as \(copy.path).\(pruned)"
    case .deletedElsewhere:
      return
        "\(what) was deleted by another process while this one had unsaved changes; they "
        + "were saved again so nothing is lost."
    case .notMerged(let reason):
      return "\(what) was changed by another process whose version could not be read: \(reason)"
    }
  }
}
