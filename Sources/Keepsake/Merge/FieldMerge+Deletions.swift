import Foundation

extension FieldMerge {
  /// `target` without the elements a change deleted, from `before` to `after`, that `target`
  /// still holds as they were `before` and `line`, the version that took the change in, lacks.
  ///
  /// A change's deletions, replayed on a version that did not take the change in: when two lines
  /// of versions meet, an element the change deleted on one line, which that line no longer held
  /// by then, must not come back from the other. Only there: where `line` holds the element (or
  /// lacks what holds it), the merge of the two lines decides, as it would without the change.
  /// Only deletions: what the change added or edited the line that took it in already carries,
  /// and replaying it could bring back what a later change there undid. An element `target`
  /// changed since is kept, as a merge keeps an element deleted on one side and changed on the
  /// other. Elements are matched by `id` in arrays of identified objects, down through the
  /// objects and elements all four hold. `removed` gets the places of the elements removed, as a
  /// merge names places (`3`, `lists.x.items.2`).
  static func removingDeletions(
    from before: JSONValue, to after: JSONValue, in target: JSONValue, lackedBy line: JSONValue,
    removed: inout [String]
  ) -> JSONValue {
    guard let deletions = deletions(from: before, to: after) else { return target }
    return removing(deletions, in: target, lackedBy: line, removed: &removed)
  }

  /// What a change deleted, from `before` to `after`, as a tree that names each deleted element
  /// by its `id` and a digest of it as it was; `nil` when it deleted nothing.
  ///
  /// Objects map the members that lead to a deletion to their trees; arrays of identified objects
  /// list `{"id": …, "deleted": "<digest>"}` for an element deleted and `{"id": …, "within":
  /// <tree>}` for one that holds a deletion. A version in a synced folder carries this for a kept
  /// change it took in (see `Ancestry.Deletions`): the digest, not the element, so what a person
  /// deleted does not stay in the file.
  static func deletions(from before: JSONValue, to after: JSONValue) -> JSONValue? {
    switch (before, after) {
    case (.object(let old), .object(let new)):
      var tree: [String: JSONValue] = [:]
      for (key, oldValue) in old {
        guard let newValue = new[key], let inner = deletions(from: oldValue, to: newValue) else {
          continue
        }
        tree[key] = inner
      }
      return tree.isEmpty ? nil : .object(tree)
    case (.array(let old), .array(let new)):
      guard index(old) != nil, let newByID = index(new) else { return nil }
      var records: [JSONValue] = []
      for element in old {
        guard let key = id(of: element), let id = element["id"] else { continue }
        if let newElement = newByID[key] {
          if let inner = deletions(from: element, to: newElement) {
            records.append(.object(["id": id, "within": inner]))
          }
        } else {
          records.append(.object(["id": id, "deleted": .string(digest(of: element))]))
        }
      }
      return records.isEmpty ? nil : .array(records)
    default:
      return nil
    }
  }

  /// `target` without the elements `deletions` (see ``deletions(from:to:)``) names that it
  /// still holds as they were and `line` lacks (see
  /// ``removingDeletions(from:to:in:lackedBy:removed:)``).
  static func removing(
    _ deletions: JSONValue, in target: JSONValue, lackedBy line: JSONValue, at path: String = "",
    removed: inout [String]
  ) -> JSONValue {
    switch (deletions, target, line) {
    case (.object(let tree), .object(let current), .object(let theirs)):
      var kept = current
      for (key, inner) in tree {
        guard let value = current[key], let lineValue = theirs[key] else { continue }
        kept[key] = removing(
          inner, in: value, lackedBy: lineValue, at: join(path, key), removed: &removed)
      }
      return .object(kept)
    case (.array(let records), .array(let current), .array(let theirs)):
      guard let lineByID = index(theirs) else { return target }
      var recordByID: [String: JSONValue] = [:]
      for record in records {
        if let key = id(of: record) { recordByID[key] = record }
      }
      // NB: a loop, not `compactMap`: `JSONValue` is expressible by `nil`, which would be a
      // `null` element rather than none.
      var kept: [JSONValue] = []
      for element in current {
        guard let key = id(of: element), let record = recordByID[key] else {
          kept.append(element)
          continue
        }
        if let inner = record["within"] {
          guard let lineElement = lineByID[key] else {
            kept.append(element)
            continue
          }
          kept.append(
            removing(
              inner, in: element, lackedBy: lineElement, at: join(path, shown(key)),
              removed: &removed))
        } else if lineByID[key] == nil, record["deleted"] == .string(digest(of: element)) {
          removed.append(join(path, shown(key)))
        } else {
          kept.append(element)
        }
      }
      return .array(kept)
    default:
      return target
    }
  }

  /// The first 16 hex digits of the SHA-256 of an element's JSON (its keys sorted).
  static func digest(of element: JSONValue) -> String {
    String(SHA256.hexDigest(of: element.jsonData()).prefix(16))
  }
}
