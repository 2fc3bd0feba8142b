/// A coordinated key's own parts, for its reference.
///
/// NB: a class, so a reference of another key stores `nil` without a metadata lookup of a
/// coordinated key's type (see `SharedReference.init`).
final class CoordinatedParts<Value: Sendable>: Sendable {
  /// The key, with state of its own (see ``CoordinatedKey/withOwnState()``).
  let key: any CoordinatedKey<Value>
  /// The same key, as the reference stores it (made here, so the reference's creation never
  /// names the key's type).
  let anyKey: any SharedKey<Value>
  let loadsInBackground: Bool
  /// Whether the value merges three ways, so the reference keeps the base of a merge.
  let merges: Bool
  /// The reference's base of a three-way merge; see `SharedReference.base`.
  // NB: guarded by the reference's `storage` lock.
  nonisolated(unsafe) var base: Value?

  private init(_ key: some CoordinatedKey<Value>) {
    let key: any CoordinatedKey<Value> = key
    self.key = key
    // NB: from the existential, so both share its box.
    self.anyKey = key
    self.loadsInBackground = key.loadsInBackground
    self.merges = key.merge != nil
  }

  /// Keeps `value` as the base of a merge, if the value merges.
  ///
  /// NB: a function of its own, so the reference's creation builds no optional of the value (a
  /// metadata lookup at run time, for every key).
  @inline(never)
  func keepBase(_ value: Value) {
    if merges { base = value }
  }

  /// The parts of a new reference of `key`, with state of its own.
  @inline(never)
  static func owning(_ key: some CoordinatedKey<Value>) -> CoordinatedParts {
    CoordinatedParts(key.withOwnState())
  }
}
