import Foundation

/// A value that merges field by field: two changes to different fields of it (or of one element
/// of it) both survive a merge with another process's change.
///
/// Arrays of `Identifiable` elements stored as JSON already merge this way: elements by their
/// `id`, and each element's members one by one. Conform a value of your own when its fields are
/// independent of each other; a value whose fields depend on each other (a range's bounds, a
/// total and its parts) must not, since a merge could make a value nobody wrote.
///
/// ```swift
/// struct Settings: Codable, Sendable, SharedFieldMergeable {
///   var theme: String
///   var fontSize: Int
/// }
/// ```
///
/// A field changed on both sides to different values is a conflict: ours is written, theirs is
/// kept as a conflict copy beside the file, and ``SharedConflict`` names the field. A merged
/// result that does not decode is never written: the value's own merge decides instead. A merge
/// passed to the key (`merge:`) wins over this.
public protocol SharedFieldMergeable: Codable {}

/// The three-way merge of stored JSON documents, member by member.
///
/// Objects merge member by member, recursively. Arrays whose elements are all objects with a
/// scalar `id` member merge by that `id`: inserts and deletions of both sides are kept, an
/// element deleted on one side and changed on the other is kept changed, and elements changed on
/// both sides merge member by member. Other arrays, and scalars, changed on both sides to
/// different values keep ours, and are reported.
enum FieldMerge {
  /// Whether values of `type` merge field by field when their key is given no merge of its own.
  static func applies<Value>(to type: Value.Type) -> Bool {
    type is any SharedFieldMergeable.Type || type is any MergesByFieldByDefault.Type
  }

  /// What a merge of documents made, and the places changed on both sides (`3.text`: member
  /// `text` of the element whose `id` is 3).
  struct Result {
    var value: JSONValue
    var conflicts: [String]
  }

  static func merge(base: JSONValue?, ours: JSONValue, theirs: JSONValue) -> Result {
    var conflicts: [String] = []
    let value = merge(base, ours, theirs, at: "", conflicts: &conflicts) ?? ours
    return Result(value: value, conflicts: conflicts)
  }

  /// `nil` stands for a member that is not there.
  private static func merge(
    _ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?, at path: String,
    conflicts: inout [String]
  ) -> JSONValue? {
    if ours == theirs { return ours }
    if ours == base { return theirs }
    if theirs == base { return ours }
    switch (ours, theirs) {
    case (.object(let mine)?, .object(let their)?) where !isEnumCase(mine) && !isEnumCase(their):
      var baseMembers: [String: JSONValue] = [:]
      if case .object(let members)? = base { baseMembers = members }
      var merged: [String: JSONValue] = [:]
      for key in Set(mine.keys).union(their.keys) {
        let value = merge(
          baseMembers[key], mine[key], their[key], at: join(path, key), conflicts: &conflicts)
        if let value { merged[key] = value }
      }
      return .object(merged)
    case (.array(let mine)?, .array(let their)?):
      var baseElements: [JSONValue] = []
      if case .array(let elements)? = base { baseElements = elements }
      if let merged = mergeByID(baseElements, mine, their, at: path, conflicts: &conflicts) {
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

  /// Whether an object is how a synthesized `Codable` enum writes a case with associated values.
  ///
  /// Such an object has one member, whose value is an object. Two cases merged member by member
  /// would make an object with two case keys, a value nobody wrote: it is taken whole.
  private static func isEnumCase(_ members: [String: JSONValue]) -> Bool {
    guard members.count == 1, case .object? = members.first?.value else { return false }
    return true
  }

  /// The `id` of an element, as text, when it is an object with a scalar `id`.
  private static func id(of element: JSONValue) -> String? {
    guard case .object(let members) = element, let id = members["id"] else { return nil }
    switch id {
    case .string(let text): return "s" + text
    case .int(let number): return "i\(number)"
    case .double(let number): return "d\(number)"
    case .bool(let flag): return "b\(flag)"
    default: return nil
    }
  }

  private static func shown(_ id: String) -> String { String(id.dropFirst()) }

  /// Merges arrays of identified objects by `id`, or `nil` when an element has none (or two
  /// share one).
  private static func mergeByID(
    _ base: [JSONValue], _ ours: [JSONValue], _ theirs: [JSONValue], at path: String,
    conflicts: inout [String]
  ) -> [JSONValue]? {
    guard let baseByID = index(base), let oursByID = index(ours), let theirsByID = index(theirs)
    else { return nil }
    var merged: [JSONValue] = []
    for element in ours {
      guard let id = id(of: element) else { return nil }
      let original = baseByID[id]
      guard let their = theirsByID[id] else {
        // Not in theirs: we inserted it, or they deleted it; a deletion wins only over an
        // element we left as it was.
        if original == element { continue }
        if original != nil { conflicts.append(join(path, shown(id))) }
        merged.append(element)
        continue
      }
      let value = merge(original, element, their, at: join(path, shown(id)), conflicts: &conflicts)
      merged.append(value ?? element)
    }
    // Their inserts, and elements we deleted that they changed, after their predecessor.
    var result = merged
    var previous: String?
    for element in theirs {
      guard let id = id(of: element) else { return nil }
      defer { previous = id }
      if oursByID[id] != nil { continue }
      if let original = baseByID[id] {
        if original == element { continue }
        conflicts.append(join(path, shown(id)))
      }
      let at =
        previous.flatMap { previous in result.firstIndex { Self.id(of: $0) == previous } }
        .map { $0 + 1 } ?? (previous == nil ? 0 : result.count)
      result.insert(element, at: at)
    }
    return result
  }

  private static func index(_ elements: [JSONValue]) -> [String: JSONValue]? {
    var byID: [String: JSONValue] = [:]
    for element in elements {
      guard let id = id(of: element), byID.updateValue(element, forKey: id) == nil else {
        return nil
      }
    }
    return byID
  }

  /// Puts back into `ours` the members of `read` that `known` lacks.
  ///
  /// `known` is the model's own encoding of what was read: what it lacks, the model does not
  /// read. Members are matched per object by name, and per element of an array of identified
  /// objects by `id`. Nothing `ours` has is replaced, and an element `ours` lacks is not brought
  /// back.
  static func keepingUnknown(in ours: JSONValue, known: JSONValue?, read: JSONValue) -> JSONValue {
    switch (ours, read) {
    case (.object(var mine), .object(let theirs)):
      var knownMembers: [String: JSONValue] = [:]
      if case .object(let members)? = known { knownMembers = members }
      for (key, value) in theirs {
        if let current = mine[key] {
          mine[key] = keepingUnknown(in: current, known: knownMembers[key], read: value)
        } else if knownMembers[key] == nil {
          // Neither the model's view of the document nor ours has it: the model does not know
          // it, so it was not removed.
          mine[key] = value
        }
      }
      return .object(mine)
    case (.array(let mine), .array(let theirs)):
      guard let theirsByID = index(theirs) else { return ours }
      var knownByID: [String: JSONValue] = [:]
      if case .array(let elements)? = known { knownByID = index(elements) ?? [:] }
      return .array(
        mine.map { element in
          guard let id = id(of: element), let read = theirsByID[id] else { return element }
          return keepingUnknown(in: element, known: knownByID[id], read: read)
        })
    default:
      return ours
    }
  }

  private static func join(_ path: String, _ component: String) -> String {
    path.isEmpty ? component : "\(path).\(component)"
  }
}

/// Values that merge field by field without saying so: arrays of identified elements.
protocol MergesByFieldByDefault {}

extension Array: MergesByFieldByDefault where Element: Identifiable & Equatable {}

/// What a merge field by field of a file's value came to.
enum FieldMergeOutcome<Value> {
  /// The documents merged into `value`; `conflicts` name the fields changed on both sides.
  case merged(Value, conflicts: [String])
  /// The value cannot merge by field here (it is not JSON, or not a field-mergeable value).
  case notApplicable
  /// The value merges only by field, and this merge could not be made (the merged document did
  /// not decode): both versions are kept.
  case keepBoth
}
