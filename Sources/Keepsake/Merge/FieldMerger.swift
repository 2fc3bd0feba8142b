import Foundation

/// One three-way merge of JSON documents (see ``FieldMerge``): the walk down the three
/// documents, and the places it reports.
struct FieldMerger {
  /// Whether the base is the version both sides started from (see
  /// ``FieldMerge/merge(base:ours:theirs:baseIsCommon:)``).
  let baseIsCommon: Bool
  /// The places changed on both sides.
  private(set) var conflicts: [String] = []
  /// The elements kept from one side that a base which is not the common version cannot place:
  /// added there, or added and deleted on the other side.
  private(set) var guessed: [String] = []

  init(baseIsCommon: Bool) {
    self.baseIsCommon = baseIsCommon
  }

  /// `nil` stands for a member that is not there.
  mutating func merge(
    _ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?, at path: String
  ) -> JSONValue? {
    if ours == theirs { return ours }
    if !baseIsCommon, case .array(let mine)? = ours, case .array(let their)? = theirs,
      let merged = mergeByID(elements(of: base), mine, their, at: path)
    {
      // A side equal to a base that is not the common version may still lack an element the
      // other side added while it added and deleted it: element by element, each guess named.
      return .array(merged)
    }
    if ours == base { return theirs }
    if theirs == base { return ours }
    switch (ours, theirs) {
    case (.object(let mine)?, .object(let their)?)
    where !FieldMerge.isEnumCase(mine) && !FieldMerge.isEnumCase(their):
      var baseMembers: [String: JSONValue] = [:]
      if case .object(let members)? = base { baseMembers = members }
      var merged: [String: JSONValue] = [:]
      for key in Set(mine.keys).union(their.keys) {
        let value = merge(baseMembers[key], mine[key], their[key], at: FieldMerge.join(path, key))
        if let value { merged[key] = value }
      }
      return .object(merged)
    case (.array(let mine)?, .array(let their)?):
      if let merged = mergeByID(elements(of: base), mine, their, at: path) {
        return .array(merged)
      }
    case (nil, .some), (.some, nil):
      // Removed on one side, changed on the other: the change is kept.
      conflicts.append(path.isEmpty ? "the whole value" : path)
      return ours ?? theirs
    default:
      break
    }
    conflicts.append(path.isEmpty ? "the whole value" : path)
    return ours
  }

  /// Merges arrays of identified objects by `id`, or `nil` when an element has none (or two
  /// share one).
  private mutating func mergeByID(
    _ base: [JSONValue], _ ours: [JSONValue], _ theirs: [JSONValue], at path: String
  ) -> [JSONValue]? {
    guard let baseByID = FieldMerge.index(base), let oursByID = FieldMerge.index(ours),
      let theirsByID = FieldMerge.index(theirs)
    else { return nil }
    var merged: [JSONValue] = []
    for element in ours {
      guard let id = FieldMerge.id(of: element) else { return nil }
      let original = baseByID[id]
      guard let their = theirsByID[id] else {
        // Not in theirs: we inserted it, or they deleted it; a deletion wins only over an
        // element we left as it was.
        if original == element { continue }
        if original != nil {
          conflicts.append(FieldMerge.join(path, FieldMerge.shown(id)))
        } else if !baseIsCommon {
          guessed.append(FieldMerge.join(path, FieldMerge.shown(id)))
        }
        merged.append(element)
        continue
      }
      let value = merge(original, element, their, at: FieldMerge.join(path, FieldMerge.shown(id)))
      merged.append(value ?? element)
    }
    // Their inserts, and elements we deleted that they changed, after their predecessor.
    var result = merged
    var previous: String?
    for element in theirs {
      guard let id = FieldMerge.id(of: element) else { return nil }
      defer { previous = id }
      if oursByID[id] != nil { continue }
      if let original = baseByID[id] {
        if original == element { continue }
        conflicts.append(FieldMerge.join(path, FieldMerge.shown(id)))
      } else if !baseIsCommon {
        guessed.append(FieldMerge.join(path, FieldMerge.shown(id)))
      }
      let at =
        previous.flatMap { previous in result.firstIndex { FieldMerge.id(of: $0) == previous } }
        .map { $0 + 1 } ?? (previous == nil ? 0 : result.count)
      result.insert(element, at: at)
    }
    return result
  }

  private func elements(of base: JSONValue?) -> [JSONValue] {
    if case .array(let elements)? = base { return elements }
    return []
  }
}
