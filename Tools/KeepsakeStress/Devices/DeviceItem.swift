import Foundation
import Keepsake

/// An item the devices campaign's processes add, edit and delete.
///
/// Each belongs to the process that added it (`<device>.<process>.<n>`), and only that process
/// edits its text or deletes it, so the text's final state is determined by the acknowledged
/// edits. Its note has two authors, that process and one other: two writers change one item's
/// two fields, and one field at once (see `DevicesChecker`).
public struct DeviceItem: DeviceElement, Hashable {
  /// `<device>.<process>.<n>`.
  public var id: String
  /// `<id>#<edit>`: which edit of the item this is.
  public var text: String
  /// `<id>~<writer>~<edit>`: a field a newer version of the app added without a new format
  /// version, which an older version's process must keep (see ``DeviceOlderItem``), set by the
  /// item's owner and by one other process.
  public var note: String?

  /// An item.
  public init(id: String, text: String) {
    self.id = id
    self.text = text
  }

  public mutating func setNote(_ note: String) { self.note = note }

  public var noteText: String? { note }
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

  public var noteText: String? { nil }
}

/// An item as a version of the app models it.
public protocol DeviceElement: Codable, Identifiable, Equatable, Sendable where ID == String {
  var id: String { get }
  var text: String { get set }
  init(id: String, text: String)
  /// Sets the item's note, if this version knows notes.
  mutating func setNote(_ note: String)
  /// The item's note, if this version knows notes.
  var noteText: String? { get }
}

/// The items' file, in a versioned format (so that it carries its ancestry in a synced folder),
/// at version 2: a process of ``DeviceFirstItemsFormat`` cannot read what this writes.
public enum DeviceItemsFormat: VersionedFormat {
  public typealias Value = [DeviceItem]
  public static let currentVersion = 2
  public static let migrations =
    MigrationChain
    .starting(at: 1, with: [DeviceOlderItem].self)
    // NB: the items are the same; the version says the newer app wrote the file.
    .migratingJSON(to: 2, as: [DeviceItem].self) { _ in }
}

/// The same file as the older version reads it: the same format version, its items without
/// notes.
public enum DeviceOlderItemsFormat: VersionedFormat {
  public typealias Value = [DeviceOlderItem]
  public static let currentVersion = 2
  public static let migrations =
    MigrationChain
    .starting(at: 1, with: [DeviceOlderItem].self)
    .migratingJSON(to: 2, as: [DeviceOlderItem].self) { _ in }
}

/// The file as the app's version before the format's version 2 knew it: it reads version 1
/// only, and its items have no notes.
public enum DeviceFirstItemsFormat: VersionedFormat {
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
