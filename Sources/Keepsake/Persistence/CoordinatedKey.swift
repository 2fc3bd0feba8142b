import Foundation

/// A key whose stored data other processes may change at any time (a file), so that every save runs
/// under a cross-process lock and starts by comparing the stored data with what this key last read
/// or wrote (data-safety rule "Processes that share a file lose nothing"; see the Data safety
/// article).
///
/// The persistence protocol of shared storage, the one a new kind of it implements: the
/// reference's persistence machine drives it (see `PersistenceMachine.swift`), and the key knows
/// its storage: how to lock it, read it, write it and keep a conflict copy. A reference finds
/// its key's conformance when it is made (`StorageContext+References.swift`); nothing else in the
/// reference or the machine names a kind of key. ``FileStorageKey`` is one; the tests' shared
/// memory key is the smallest.
protocol CoordinatedKey<Value>: SharedKey, BackgroundLoadingKey {
  /// Where the stored data is, for errors and conflict reports.
  var url: URL { get }

  /// The key as a reference in `context` uses it: one spelling for every name of its stored
  /// data (a file's links resolved), so its ``SharedKey/id`` finds one reference.
  func resolved(in context: StorageContext) -> Self

  /// A copy of the key that remembers files on its own: each reference keeps its own copy, so
  /// one key value used in two contexts (a `static let` key and two tests, say) never takes
  /// one context's write for the other's.
  func withOwnState() -> Self

  /// Connects the reference to conflicts the key resolves on its own (a sync engine's copies of
  /// its file): `fallback` is its default, `report` takes each conflict, spaced out on `timing`.
  func reportSyncConflicts(
    fallback: Value, timing: ReportTiming,
    to report: @escaping @Sendable (SharedConflict) -> Void)

  /// How two changes of the value merge, when they can.
  var merge: SharedMerge<Value>? { get }

  /// Takes the exclusive cross-process lock of the stored data, waiting up to `timeout` for
  /// other holders.
  func lock(in context: StorageContext, timeout: Duration) throws -> FileLock

  /// How the stored data differs from what this key last read or wrote; reads nothing when it
  /// is the same, unless `rereading` (``Shared/load()``: read it whatever is known of it).
  ///
  /// - Throws: ``SharedLoadError`` when the stored data changed and cannot be read.
  func storedChange(in context: StorageContext, rereading: Bool) throws -> StoredChange<Value>

  /// Records that this process now holds `identity` (adopted from outside), so the same data is
  /// not taken for a change again.
  func remember(_ identity: FileIdentity?)

  /// Writes `value` durably and remembers it as what this key last wrote.
  func write(_ value: Value, in context: StorageContext) throws

  /// Keeps `data`, the other side of a conflict, as a conflict copy beside the stored data, and
  /// says which older copies it removed to keep their number bounded.
  func keepConflictCopy(_ data: Data, in context: StorageContext) throws -> KeptConflictCopy

  /// Merges `ours` and `theirs` field by field on their stored JSON, when the value does.
  func mergeByField(
    base: Value, ours: Value, theirs: Value
  ) -> FieldMergeOutcome<Value>

  /// Keeps `value`, a change whose save was refused, durably with the `base` it was made on
  /// and the values of the earlier kept changes it supersedes (`steps`, oldest first), in
  /// place of the earlier one at `earlier`; says where.
  func keepUnsavedChange(
    _ value: Value, base: Value?, steps: [Value], reason: String, superseding earlier: URL?,
    in context: StorageContext
  ) throws -> URL
}

extension CoordinatedKey {
  func resolved(in context: StorageContext) -> Self { self }
  var loadsInBackground: Bool { false }
  func reportSyncConflicts(
    fallback: Value, timing: ReportTiming,
    to report: @escaping @Sendable (SharedConflict) -> Void
  ) {}
}

/// How stored data differs from what a key last read or wrote.
enum StoredChange<Value: Sendable>: Sendable {
  /// It is what the key last read or wrote.
  case unchanged
  /// It was there and is gone: someone deleted it.
  case deleted
  /// Someone replaced it with `value`, read from `data`, whose identity is `identity`.
  case replaced(Value, data: Data, identity: FileIdentity?)

  /// What taking the change in gives: their value (the default for a deleted file) and the
  /// identity to remember (`nil` for no file); `nil` when nothing changed.
  func adopted(fallback: Value) -> (value: Value, identity: FileIdentity?)? {
    switch self {
    case .unchanged: return nil
    case .deleted: return (fallback, nil)
    case .replaced(let theirs, _, let identity): return (theirs, identity)
    }
  }
}

/// A key whose writes are queued and must be made durable by a separate step: preferences,
/// whose store writes in the background (data-safety rule "An acknowledged save is on disk").
protocol DurableKey: Sendable {
  /// Writes what the key queued durably, and reports the error of a write that failed.
  func makeDurable(in context: StorageContext) throws
}
