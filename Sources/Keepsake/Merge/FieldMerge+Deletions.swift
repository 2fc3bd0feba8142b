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
    at path: String = "", removed: inout [String]
  ) -> JSONValue {
    switch (before, after, target, line) {
    case (.object(let old), .object(let new), .object(let current), .object(let theirs)):
      var kept = current
      for (key, value) in current {
        guard let oldValue = old[key], let newValue = new[key], let lineValue = theirs[key] else {
          continue
        }
        kept[key] = removingDeletions(
          from: oldValue, to: newValue, in: value, lackedBy: lineValue, at: join(path, key),
          removed: &removed)
      }
      return .object(kept)
    case (.array(let old), .array(let new), .array(let current), .array(let theirs)):
      guard let oldByID = index(old), let newByID = index(new), let lineByID = index(theirs)
      else { return target }
      // NB: a loop, not `compactMap`: `JSONValue` is expressible by `nil`, which would be a
      // `null` element rather than none.
      var kept: [JSONValue] = []
      for element in current {
        guard let id = id(of: element), let oldElement = oldByID[id] else {
          kept.append(element)
          continue
        }
        if let newElement = newByID[id], let lineElement = lineByID[id] {
          kept.append(
            removingDeletions(
              from: oldElement, to: newElement, in: element, lackedBy: lineElement,
              at: join(path, shown(id)), removed: &removed))
        } else if newByID[id] != nil || lineByID[id] != nil || element != oldElement {
          kept.append(element)
        } else {
          removed.append(join(path, shown(id)))
        }
      }
      return .array(kept)
    default:
      return target
    }
  }
}
