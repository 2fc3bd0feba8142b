/// How a file key combines its pending change with another process's change of the same file: a
/// three-way merge.
///
/// When a save finds that someone else replaced the file since this reference last read or wrote
/// it, it merges three values: the *base* (what this reference last read or wrote), *ours* (the
/// value in memory) and *theirs* (the file now). The merged value becomes the value in memory
/// (observers are told) and is what is written (data-safety rule "Processes that share a file lose
/// nothing"; see the Data safety article).
///
/// Values that conform to ``SharedMergeable`` merge by themselves. Arrays of `Identifiable &
/// Equatable` elements and dictionaries of `Equatable` values do out of the box, so most
/// collections need nothing declared. Pass a merge to the key for another policy:
///
/// ```swift
/// .fileStorage(url, merge: .byID(preferring: .theirs))
/// ```
///
/// A value that cannot merge is never silently overwritten either: ours is written, theirs is
/// first kept as a conflict copy beside the file, and ``Shared/lastConflict`` says where.
public struct SharedMerge<Value: Sendable>: Sendable {
  private let body: @Sendable (Value, Value, Value) -> SharedMergeResult<Value>

  /// A merge computed by `merge(base, ours, theirs)`.
  ///
  /// The closure runs on a background queue, under the value's lock: keep it a pure function of
  /// its arguments.
  public init(
    _ merge:
      @escaping @Sendable (_ base: Value, _ ours: Value, _ theirs: Value) ->
      SharedMergeResult<Value>
  ) {
    self.body = merge
  }

  /// Merges `ours` and `theirs`, both changed from `base`.
  public func merge(base: Value, ours: Value, theirs: Value) -> SharedMergeResult<Value> {
    body(base, ours, theirs)
  }

  /// For a value that merges only field by field (``SharedFieldMergeable``), the merge used when
  /// the fields cannot be merged: it says so, and the key keeps both versions.
  static func fieldsOnly(_ type: Value.Type) -> SharedMerge? {
    guard type is any SharedFieldMergeable.Type else { return nil }
    return SharedMerge { _, ours, _ in
      SharedMergeResult(value: ours, conflicts: ["the whole value"])
    }
  }

  /// The merge of a value that conforms to ``SharedMergeable``, found at run time, or `nil`.
  static func conformance(of type: Value.Type) -> SharedMerge? {
    guard type is any SharedMergeable.Type else { return nil }
    return SharedMerge { base, ours, theirs in
      // NB: found again on each merge rather than captured: metatypes are not Sendable.
      guard let mergeable = Value.self as? any SharedMergeable.Type else {
        return SharedMergeResult(value: ours, conflicts: ["the whole value"])
      }
      return Self.merge(mergeable, base: base, ours: ours, theirs: theirs)
    }
  }

  private static func merge<M: SharedMergeable>(
    _ type: M.Type, base: Value, ours: Value, theirs: Value
  ) -> SharedMergeResult<Value> {
    // NB: `M` is `Value` (found from `Value.self`), so these casts cannot fail; if they ever did,
    // keeping ours and reporting a conflict loses nothing the caller does not hear of.
    guard let base = base as? M, let ours = ours as? M, let theirs = theirs as? M,
      case let result = M.merge(base: base, ours: ours, theirs: theirs),
      let value = result.value as? Value
    else { return SharedMergeResult(value: ours, conflicts: ["the whole value"]) }
    return SharedMergeResult(value: value, conflicts: result.conflicts)
  }
}

/// The value a three-way merge produced, and what it had to decide.
public struct SharedMergeResult<Value> {
  /// The merged value.
  public var value: Value
  /// The parts changed on both sides, resolved by the merge's policy (for collections, the
  /// identifiers of the elements); empty when the two changes did not overlap.
  public var conflicts: [String]

  /// Creates a merge result.
  public init(value: Value, conflicts: [String] = []) {
    self.value = value
    self.conflicts = conflicts
  }
}

extension SharedMergeResult: Sendable where Value: Sendable {}

/// Which side wins where both sides changed the same part of a value.
public enum MergePreference: Sendable, Equatable {
  /// The change made in this process.
  case ours
  /// The change found in the file.
  case theirs
}
