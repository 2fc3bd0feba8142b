import Foundation

/// What a reference's running job carries from one step to the next.
///
/// NB: `@unchecked Sendable`: touched only on the reference's lane, which runs one thing at a
/// time.
final class PersistenceWork<Value: Sendable>: @unchecked Sendable {
  /// The file's lock, held by a job or by an open transaction.
  var lock: FileLock?
  /// What the last read found.
  var change: StoredChange<Value>?
  /// The bytes of theirs, to keep as a conflict copy.
  var copy: Data?
  /// Whether theirs, the change last read, is on disk as a conflict copy.
  ///
  /// A merge that keeps
  /// ours for fields both sides changed takes theirs in only then: until then the value and its
  /// base stay as they were, so a copy that fails leaves nothing merged against a base that
  /// was never read, and the next save merges it again, copy and all.
  var theirsKept = false
  /// The value to write, and its generation.
  var plan: (value: Value, generation: UInt64)?
  /// The value an open transaction began with, and whether it was saved then.
  var snapshot: (value: Value, saved: Bool)?
  /// Where the last quarantine copy was put.
  var quarantined: URL?
  /// Where this reference's change is kept while the file cannot take it: the identity of the
  /// copy it wrote there, the value, base and earlier steps it holds, and the value's
  /// generation.
  var unsaved:
    (
      url: URL, identity: FileIdentity?, value: Value, base: Value?, steps: [Value],
      generation: UInt64
    )?
}
