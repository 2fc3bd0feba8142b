import Foundation

extension FileStorageKey {
  /// Merges `ours` and `theirs` field by field on their stored JSON, base: `base`, the version
  /// both started from (see ``SharedFieldMergeable``).
  func mergeByField(base: Value, ours: Value, theirs: Value) -> FieldMergeOutcome<Value> {
    mergeByField(base: base, ours: ours, theirs: theirs, baseIsCommon: true)
  }

  /// Merges `ours` and `theirs` field by field on their stored JSON, base: `base`;
  /// `baseIsCommon` as ``FieldMerge/merge(base:ours:theirs:baseIsCommon:)`` takes it.
  func mergeByField(
    base: Value, ours: Value, theirs: Value, baseIsCommon: Bool
  ) -> FieldMergeOutcome<Value> {
    guard mergesByField else { return .notApplicable }
    let onlyByField = !(Value.self is any SharedMergeable.Type)
    let fallback: FieldMergeOutcome<Value> = onlyByField ? .keepBoth : .notApplicable
    // NB: theirs as this model encodes the value read, not the bytes read: the three documents
    // then differ only where the values do (another writer's number formatting, key order, a
    // sync engine's ancestry or an older format version must not look like a change, which
    // would bring back an element one side deleted). What this model does not read of theirs
    // is kept by the write (see `keepingUnknownMembers(_:)`).
    guard let baseData = try? encode(base), let oursData = try? encode(ours),
      let theirsData = try? encode(theirs),
      let baseDocument = try? JSONValue(parsing: baseData),
      let oursDocument = try? JSONValue(parsing: oursData),
      let theirsDocument = try? JSONValue(parsing: theirsData)
    else { return fallback }
    let merged = FieldMerge.merge(
      base: baseDocument, ours: oursDocument, theirs: theirsDocument, baseIsCommon: baseIsCommon)
    // A merged document that does not decode is never written.
    guard let value = try? decode(merged.value.jsonData()) else { return fallback }
    let envelope = Self.version(of: oursDocument) != nil
    let inContent = { (path: String) in
      envelope && path.hasPrefix("content.") ? String(path.dropFirst("content.".count)) : path
    }
    return .merged(
      value, conflicts: merged.conflicts.map(inContent), guessed: merged.guessed.map(inContent))
  }

  /// The format version of a versioned document (`{"version": N, "content": ...}`), if it is one.
  private static func version(of document: JSONValue) -> JSONValue? {
    guard case .object(let members) = document, members["content"] != nil else { return nil }
    return members["version"]
  }
}
