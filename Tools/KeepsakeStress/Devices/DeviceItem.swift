import Foundation
import Keepsake

/// An item the devices campaign's processes add, edit and delete: each belongs to the process
/// that added it (`<device>.<process>.<n>`), and only that process edits or deletes it, so every
/// change of the file's items has exactly one author and the final file is fully determined by
/// the acknowledged edits.
public struct DeviceItem: Codable, Identifiable, Equatable, Hashable, Sendable {
  /// `<device>.<process>.<n>`.
  public var id: String
  /// `<id>#<edit>`: which edit of the item this is.
  public var text: String

  /// An item.
  public init(id: String, text: String) {
    self.id = id
    self.text = text
  }
}

/// The items' file, in a versioned format (so that it carries its ancestry in a synced folder).
public enum DeviceItemsFormat: VersionedFormat {
  public typealias Value = [DeviceItem]
  public static let currentVersion = 1
}

/// A value with no meaningful merge, which each process sets now and then: conflicts of it keep
/// both versions, and are reported.
public struct DeviceSettings: Codable, Equatable, Sendable {
  /// The process that set it last, `<device>.<process>`.
  public var owner: String
  /// How many times that process had set it.
  public var counter: Int

  /// A value.
  public init(owner: String, counter: Int) {
    self.owner = owner
    self.counter = counter
  }
}

/// The settings' file, in a versioned format.
public enum DeviceSettingsFormat: VersionedFormat {
  public typealias Value = DeviceSettings
  public static let currentVersion = 1
}
