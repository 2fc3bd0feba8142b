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
    /// Elements kept from one side that the base could not place (see `baseIsCommon`).
    var guessed: [String] = []
  }

  /// Merges `ours` and `theirs` three ways.
  ///
  /// `baseIsCommon`: whether `base` is the version both sides started from. When it is only an
  /// older one (or none: the key's default), an element one side holds and the base lacks may
  /// be one the other side added and then deleted since: it is kept, and named in `guessed`.
  static func merge(
    base: JSONValue?, ours: JSONValue, theirs: JSONValue, baseIsCommon: Bool = true
  ) -> Result {
    var merger = FieldMerger(baseIsCommon: baseIsCommon)
    let value = merger.merge(base, ours, theirs, at: "") ?? ours
    return Result(value: value, conflicts: merger.conflicts, guessed: merger.guessed)
  }

  /// Whether an object is how a synthesized `Codable` enum writes a case with associated values.
  ///
  /// Such an object has one member, whose value is an object. Two cases merged member by member
  /// would make an object with two case keys, a value nobody wrote: it is taken whole.
  static func isEnumCase(_ members: [String: JSONValue]) -> Bool {
    guard members.count == 1, case .object? = members.first?.value else { return false }
    return true
  }

  /// The `id` of an element, as text, when it is an object with a scalar `id`.
  static func id(of element: JSONValue) -> String? {
    guard case .object(let members) = element, let id = members["id"] else { return nil }
    switch id {
    case .string(let text): return "s" + text
    case .int(let number): return "i\(number)"
    case .double(let number): return "d\(number)"
    case .bool(let flag): return "b\(flag)"
    default: return nil
    }
  }

  static func shown(_ id: String) -> String { String(id.dropFirst()) }

  static func index(_ elements: [JSONValue]) -> [String: JSONValue]? {
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

  static func join(_ path: String, _ component: String) -> String {
    path.isEmpty ? component : "\(path).\(component)"
  }
}

/// Values that merge field by field without saying so: arrays of identified elements.
protocol MergesByFieldByDefault {}

extension Array: MergesByFieldByDefault where Element: Identifiable & Equatable {}

/// What a merge field by field of a file's value came to.
enum FieldMergeOutcome<Value> {
  /// The documents merged into `value`; `conflicts` name the fields changed on both sides,
  /// `guessed` the elements kept from one side that the base could not place.
  case merged(Value, conflicts: [String], guessed: [String] = [])
  /// The value cannot merge by field here (it is not JSON, or not a field-mergeable value).
  case notApplicable
  /// The value merges only by field, and this merge could not be made (the merged document did
  /// not decode): both versions are kept.
  case keepBoth
}
