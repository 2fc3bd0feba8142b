import Foundation

// Members a version of the app does not know survive its writes, as protobuf keeps unknown
// fields: a newer version added a field (an optional one needs no format version), an older
// version edits the file, and the newer version's field is still there.
//
// The members of the last document read that the model does not read are those that the
// model's own encoding of the value read from it lacks. Every write puts them back where they
// were (see `FieldMerge.keepingUnknown(in:known:read:)`): per object, and per element of an
// array of identified objects by `id`. So a member the model knows and removed stays removed,
// an element the model deleted goes with its unknown members, and nothing the model writes is
// ever replaced.
extension FileStorageKey {
  /// `data`, the value's encoding, with the members of the last document read that the model
  /// does not know merged back in; `data` itself when there are none (the common case costs one
  /// encoding and one comparison per document read).
  func keepingUnknownMembers(_ data: Data) -> Data {
    let found = known.unknownMembers(find: { read, value in
      guard let value = value as? Value else { return nil }
      return unknownMembers(of: read, value: value)
    })
    guard let found else { return data }
    return putting([found], into: data)
  }

  /// `data` with what each of `reads` (documents read, with the values read from them) holds
  /// that the model does not read put back, as ``keepingUnknownMembers(_:)`` does for the last
  /// document the key read: for a merge of several documents read at once (another device's
  /// copy and the file).
  func keepingUnknownMembers(_ data: Data, of reads: [(Data, Value)]) -> Data {
    let found = reads.compactMap { read, value in unknownMembers(of: read, value: value) }
    guard !found.isEmpty else { return data }
    return putting(found, into: data)
  }

  /// `data` with each document's unknown members (`theirs`, beside the model's view of it,
  /// `base`) put back, in order.
  private func putting(_ found: [(base: JSONValue, theirs: JSONValue)], into data: Data) -> Data {
    guard let ours = try? JSONValue(parsing: data) else { return data }
    let merged = found.reduce(ours) { document, members in
      FieldMerge.keepingUnknown(in: document, known: members.base, read: members.theirs)
    }
    // NB: a document that does not decode is never written: the model's own bytes are.
    guard merged != ours else { return data }
    // NB: the bytes the model's encoder writes for the same document (its `/` escaped too), so
    // a file with members kept is what the newer version would write for it.
    let kept = merged.jsonData(escapingSlashes: true)
    guard (try? decode(kept)) != nil else { return data }
    return kept
  }

  /// The three documents merged as JSON, field by field, their ancestry aside, the value the
  /// model reads from the result, and the places changed on both sides to different values;
  /// `nil` when they are not JSON or the result does not decode.
  func mergedDocument(base: Data, ours: Data, theirs: Data) -> (Data, Value, [String])? {
    func document(_ data: Data) -> JSONValue? {
      guard var document = try? JSONValue(parsing: data) else { return nil }
      if case .object(var members) = document {
        members["ancestry"] = nil
        document = .object(members)
      }
      return document
    }
    guard let base = document(base), let ours = document(ours), let theirs = document(theirs)
    else { return nil }
    let result = FieldMerge.merge(base: base, ours: ours, theirs: theirs)
    let merged = result.value.jsonData()
    guard let value = try? decode(merged) else { return nil }
    let conflicts = result.conflicts.map { path in
      path.hasPrefix("content.") ? String(path.dropFirst("content.".count)) : path
    }
    return (merged, value, conflicts)
  }

  /// The model's encoding of `value` and `read` as documents, when `read` has members the model
  /// does not write; `nil` when it has none, or when they cannot be kept (not JSON, another
  /// format version: a migration decides what it keeps).
  private func unknownMembers(
    of read: Data, value: Value
  ) -> (base: JSONValue, theirs: JSONValue)? {
    guard let encoded = try? encode(value), encoded != read,
      let base = try? JSONValue(parsing: encoded), var theirs = try? JSONValue(parsing: read)
    else { return nil }
    if case .object(var members) = theirs, case .object(let baseMembers) = base {
      guard members["version"] == baseMembers["version"] else { return nil }
      // The ancestry of a synced file is the sync layer's, written with every save.
      members["ancestry"] = nil
      theirs = .object(members)
    }
    return (base, theirs)
  }
}
