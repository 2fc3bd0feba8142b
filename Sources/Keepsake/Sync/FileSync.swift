import Foundation

/// A file key's part in keeping its file whole across devices: how its values carry their
/// ancestry, and the state of the reference it belongs to (see `SyncState`).
///
/// Stored in ``FileStorageKey`` as one property, so the key's own code calls it in a handful of
/// places: after every read and write, to encode a value, and to subscribe (see
/// `FileStorageKey+Sync.swift`).
struct FileSync<Value: Sendable>: Sendable {
  /// Encodes a value with its ancestry: set by `.fileStorage(_:format:)`; `nil` for plain JSON,
  /// which cannot carry it.
  var encodeWithAncestry: (@Sendable (Value, Ancestry) throws -> Data)?
  /// The settings.
  var options = SyncOptions()
  /// The state of the reference that owns the key (see `withOwnState()`).
  var state = SyncState()

  /// A copy with a fresh state (its known file's too), for the reference that takes the key.
  func withOwnState() -> FileSync {
    var copy = self
    copy.state = SyncState()
    return copy
  }
}

/// How a file key deals with sync engines' copies: settings for tests and tools.
struct SyncOptions: Sendable, Equatable {
  /// How long a device that lacks the merge base waits for a device that has it to merge a
  /// copy, before it merges against an older common version or the key's default itself.
  var baseWait: Duration = .seconds(20)
  /// Where this device keeps its versions; `nil` for the platform's state folder (see
  /// `BaseStore`).
  var stateFolder: URL?

  /// The defaults.
  init() {}
}

/// What the sync code needs of a file key, without reaching into it.
struct SyncTarget<Value: Sendable>: Sendable {
  let url: URL
  let keyID: SharedKeyID
  let decode: @Sendable (Data) throws -> Value
  let encode: @Sendable (Value) throws -> Data
  let encodeWithAncestry: (@Sendable (Value, Ancestry) throws -> Data)?
  let merge: SharedMerge<Value>?
  let maximumFileSize: Int
  let options: SyncOptions
  /// Puts back into merged bytes what the documents read (with the values read from them)
  /// hold that the model does not read: a merge of another device's copy keeps the fields a
  /// newer version of the app wrote, as every save does.
  var keepingUnknownMembers: @Sendable (Data, [(Data, Value)]) -> Data = { data, _ in data }
  /// Merges three documents (a base, the file, a copy) as JSON, field by field.
  ///
  /// Their ancestry aside; the document, its value and the places changed on both sides to
  /// different values, or `nil` when they do not merge into one the model reads: what the
  /// members the model does not read are merged from.
  var mergeDocuments: @Sendable (Data, Data, Data) -> (Data, Value, [String])? = { _, _, _ in
    nil
  }
  /// The key's merge field by field (see `FileStorageKey.mergeByField`), which a copy's merge
  /// takes before the value's own merge, as a save's does; the last argument: whether the base
  /// is the two versions' newest common version.
  var mergeByField: @Sendable (Value, Value, Value, Bool) -> FieldMergeOutcome<Value> = {
    _, _, _, _ in .notApplicable
  }
  /// The value with a kept change (the bytes of its file) merged into it, as its take-in
  /// merges it (see `FileStorageKey.merging(_:into:)`); `nil` when it does not read or merge.
  var applyKeptChange: @Sendable (Data, Value) -> Value? = { _, _ in nil }
  /// What a kept change (the bytes of its file) deleted, a tree per step (see
  /// `FileStorageKey.deletions(of:)`); `nil` when it does not read.
  var keptDeletions: @Sendable (Data) -> [JSONValue]? = { _ in nil }
  /// The value without the elements a kept change deleted (its trees) that it still holds
  /// unchanged and the last value, a version that took the change in, lacks, and their places
  /// (see `FileStorageKey.removingDeletions(_:from:lackedBy:)`); `nil` when a value does not
  /// encode.
  var removeKeptDeletions: @Sendable ([JSONValue], Value, Value) -> (Value, removed: [String])? =
    { _, value, _ in (value, []) }
  /// The path of the file's folder.
  ///
  /// NB: from the file's path as the key keeps it: on Linux `deletingLastPathComponent()`
  /// standardizes and resolves links with a system call per component, and `URL.path` is
  /// costly; a key's creation asked for the folder three times.
  let folderPath: String

  init(
    url: URL, folderPath: String, keyID: SharedKeyID,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data,
    encodeWithAncestry: (@Sendable (Value, Ancestry) throws -> Data)?,
    merge: SharedMerge<Value>?, maximumFileSize: Int, options: SyncOptions
  ) {
    self.url = url
    self.keyID = keyID
    self.decode = decode
    self.encode = encode
    self.encodeWithAncestry = encodeWithAncestry
    self.merge = merge
    self.maximumFileSize = maximumFileSize
    self.options = options
    self.folderPath = folderPath
  }

  /// The file's folder.
  var folder: URL { URL(fileURLWithPath: folderPath, isDirectory: true) }

  /// Whether the file's bytes carry their ancestry (versioned formats).
  var carriesAncestry: Bool { encodeWithAncestry != nil }

  var fileName: String { url.lastPathComponent }

  /// This device's store of versions on `context`'s file system.
  func store(in context: StorageContext) -> BaseStore {
    if let folder = options.stateFolder {
      return BaseStore(context: context, root: folder)
    }
    return BaseStore(context: context)
  }

  /// Whether `name` is a sync engine's copy of this file; a cheap test first, since the watcher
  /// asks it of every name in the folder.
  func isCopy(_ name: String) -> Bool {
    ConflictCopyName.mightBeCopy(name) && ConflictCopyName.engine(ofCopy: name, of: fileName) != nil
  }

  /// The bytes for `value`: with ancestry when the file is synced and the format carries it.
  func encode(_ value: Value, ancestry: Ancestry?) throws -> Data {
    if let ancestry, let encodeWithAncestry { return try encodeWithAncestry(value, ancestry) }
    return try encode(value)
  }
}
