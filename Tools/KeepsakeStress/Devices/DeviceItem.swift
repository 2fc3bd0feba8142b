import Foundation
import Keepsake

/// An item the devices campaign's processes add, edit and delete: each belongs to the process
/// that added it (`<device>.<process>.<n>`), and only that process edits or deletes it, so every
/// change of the file's items has exactly one author and the final file is fully determined by
/// the acknowledged edits.
public struct DeviceItem: DeviceElement, Hashable {
  /// `<device>.<process>.<n>`.
  public var id: String
  /// `<id>#<edit>`: which edit of the item this is.
  public var text: String
  /// `<id>~<edit>`: a field a newer version of the app added without a new format version,
  /// which an older version's process must keep (see ``DeviceOlderItem``).
  public var note: String?

  /// An item.
  public init(id: String, text: String) {
    self.id = id
    self.text = text
  }

  public mutating func setNote(_ note: String) { self.note = note }
}

/// The same item as an older version of the app knows it, without `note`: a process running it
/// never sets a note, and its saves must keep the notes the newer processes set.
public struct DeviceOlderItem: DeviceElement, Hashable {
  public var id: String
  public var text: String

  public init(id: String, text: String) {
    self.id = id
    self.text = text
  }

  public mutating func setNote(_ note: String) {}
}

/// An item as a version of the app models it.
public protocol DeviceElement: Codable, Identifiable, Equatable, Sendable where ID == String {
  var id: String { get }
  var text: String { get set }
  init(id: String, text: String)
  /// Sets the item's note, if this version knows notes.
  mutating func setNote(_ note: String)
}

/// The items' file, in a versioned format (so that it carries its ancestry in a synced folder).
public enum DeviceItemsFormat: VersionedFormat {
  public typealias Value = [DeviceItem]
  public static let currentVersion = 1
}

/// The same file as the older version reads it: the same format version.
public enum DeviceOlderItemsFormat: VersionedFormat {
  public typealias Value = [DeviceOlderItem]
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
