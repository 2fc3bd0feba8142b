/// A folder-sync engine that carries files between devices, and leaves the other version of a
/// file as a conflict copy beside it when two devices changed the file while apart.
///
/// A file key recognizes each engine's conflict copies by their names (and, on Apple platforms,
/// iCloud Drive's unresolved versions), merges them into the file and removes them only once
/// their content is durably in the file (see "Devices" in the Data safety article). The engine
/// is named in ``SyncedVersion/Origin/conflictCopy(_:engine:)``, so the app can tell the person
/// which copy was merged or kept.
public enum SyncEngine: String, Sendable, Equatable, Hashable, CaseIterable,
  CustomStringConvertible
{
  /// Syncthing: `name.sync-conflict-20261201-152748-6IHVPYN.ext`.
  case syncthing
  /// Dropbox: `name (Ann's conflicted copy 2026-12-01).ext`, also with ` (1)` after the date,
  /// or without the owner.
  case dropbox
  /// Nextcloud's and ownCloud's current desktop clients:
  /// `name (conflicted copy 2026-12-01 152748).ext`, also with a user name before the date.
  case nextcloud
  /// Older ownCloud and Nextcloud clients: `name_conflict-20261201-152748.ext`.
  case ownCloud
  /// iCloud Drive on Apple platforms: unresolved `NSFileVersion`s of the file, never a name.
  case iCloudDrive

  public var description: String {
    switch self {
    case .syncthing: return "Syncthing"
    case .dropbox: return "Dropbox"
    case .nextcloud: return "Nextcloud"
    case .ownCloud: return "ownCloud"
    case .iCloudDrive: return "iCloud Drive"
    }
  }
}
