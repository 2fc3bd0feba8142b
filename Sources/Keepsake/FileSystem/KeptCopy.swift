import Foundation

/// A version of a file that Keepsake kept beside it rather than lose it.
///
/// Keepsake never deletes a version it could not write over safely: a damaged file, another
/// process's or device's side of a conflict, a change that could not be saved, or the file a
/// restore replaced stays in the file's folder under the file's name with a marker and the UTC
/// time it was kept: `drafts.json` has copies such as `drafts.conflict-20261129T210300Z.json`.
/// List them with ``StorageContext/keptCopies(of:)`` or ``StorageContext/keptCopies(in:)``, and
/// put one back with ``StorageContext/restore(_:maximumSize:)``; the `keepsake` command-line tool
/// does the same for a support person.
public struct KeptCopy: Hashable, Sendable, CustomStringConvertible {
  /// Why a version was kept.
  public enum Reason: String, Hashable, Sendable, CaseIterable {
    /// The file could not be read (damaged, or written by a newer version of the app) and was set
    /// aside before anything replaced it: `name.quarantined-<time>.ext`.
    case quarantined
    /// The other side of a conflict with another process or device, kept while ours was
    /// written: `name.conflict-<time>.ext`.
    case conflict
    /// The file a restore replaced: `name.kept-<time>.ext`.
    case kept
    /// A change that could not be written into its file (the file unreadable or from a newer
    /// version, or its folder gone), kept as soon as the save was refused and merged into the
    /// file by the next process that can: `name.unsaved-<time>.ext`.
    case unsaved

    var marker: String {
      switch self {
      case .quarantined: Quarantine.marker
      case .conflict: Quarantine.conflictMarker
      case .kept: Quarantine.keptMarker
      case .unsaved: Quarantine.unsavedMarker
      }
    }
  }

  /// Where the copy is.
  public let url: URL
  /// Why it was kept.
  public let reason: Reason
  /// The file it is a copy of, in the same folder; `nil` when the file's name was too long for a
  /// copy's name to hold it, and the folder has no file it stands for.
  public let original: URL?

  /// The copy at `url`, or `nil` when its name is not the name of a copy Keepsake keeps.
  ///
  /// The original is taken from the copy's name alone; for a name that was shortened to fit, it
  /// is `nil`: ``StorageContext/keptCopies(in:)`` finds it among the folder's files, and
  /// ``init(url:of:)`` names it. A copy's temporary file, which a write in progress (or one a
  /// crash cut short) leaves beside it, is not a copy.
  public init?(url: URL) {
    guard let name = Self.parse(url.lastPathComponent), let reason = Reason(marker: name.marker)
    else { return nil }
    self.url = url
    self.reason = reason
    self.original =
      FileName.looksShortened(Substring(name.stem))
      ? nil : url.deletingLastPathComponent().appendingPathComponent(name.plainOriginal)
  }

  /// The copy at `url` of the file at `original`, or `nil` when `url` is not the name of a copy
  /// of that file in the same folder.
  public init?(url: URL, of original: URL) {
    guard let name = Self.parse(url.lastPathComponent), let reason = Reason(marker: name.marker),
      Quarantine.isCopy(named: url.lastPathComponent, of: original.lastPathComponent),
      original.deletingLastPathComponent().standardizedFileURL
        == url.deletingLastPathComponent().standardizedFileURL
    else { return nil }
    self.url = url
    self.reason = reason
    self.original = original
  }

  /// The name of a kept copy taken apart; `nil` for another name, or a temporary file's.
  private static func parse(_ name: String) -> Quarantine.CopyName? {
    guard !name.contains(TemporaryFile.marker) else { return nil }
    return Quarantine.parse(name)
  }

  init(url: URL, reason: Reason, original: URL?) {
    self.url = url
    self.reason = reason
    self.original = original
  }

  public var description: String {
    "\(url.lastPathComponent) (\(reason.rawValue), copy of "
      + "\(original?.lastPathComponent ?? "a file whose name was shortened to fit"))"
  }
}

extension KeptCopy.Reason {
  init?(marker: String) {
    guard let reason = Self.allCases.first(where: { $0.marker == marker }) else { return nil }
    self = reason
  }
}
