import Keepsake

/// The shape of a JSON document: its keys and JSON types, recursively, without the values.
///
/// The elements of an array are merged into one element shape, and values of different types at
/// the same place become ``oneOf(_:)``. A shape is what the drift check compares: two encodings
/// with the same keys and types have the same shape, whatever their values.
///
/// It is stored as readable JSON, with type names for leaves:
///
/// ```json
/// {"content": [{"body": "string", "id": "string", "pinned": "bool", "tags": ["string"]}],
///  "version": "number"}
/// ```
public indirect enum JSONShape: Hashable, Sendable, CustomStringConvertible {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool
  /// A number.
  case number
  /// A string.
  case string
  /// An array with the merged shape of its elements; `nil` when every sample was empty.
  case array(JSONShape?)
  /// An object with the shape of each key.
  case object([String: JSONShape])
  /// Different shapes seen at the same place (for example `string` and `null`).
  case oneOf(Set<JSONShape>)

  /// The shape of `value`.
  public init(of value: JSONValue) {
    switch value {
    case .null: self = .null
    case .bool: self = .bool
    case .int, .double: self = .number
    case .string: self = .string
    case .array(let elements):
      self = .array(elements.map(JSONShape.init(of:)).reduce(nil) { $0?.merged(with: $1) ?? $1 })
    case .object(let object): self = .object(object.mapValues(JSONShape.init(of:)))
    }
  }

  /// The shape that covers both `self` and `other`.
  public func merged(with other: JSONShape) -> JSONShape {
    switch (self, other) {
    case _ where self == other:
      return self
    case (.array(let left), .array(let right)):
      guard let left, let right else { return .array(left ?? right) }
      return .array(left.merged(with: right))
    case (.object(let left), .object(let right)):
      return .object(left.merging(right) { $0.merged(with: $1) })
    default:
      return .oneOf(members.union(other.members))
    }
  }

  private var members: Set<JSONShape> {
    if case .oneOf(let members) = self { return members }
    return [self]
  }

  /// The JSON type in words, as in drift messages: `string`, `array of string`, `object`.
  public var description: String {
    switch self {
    case .null: "null"
    case .bool: "bool"
    case .number: "number"
    case .string: "string"
    case .array(nil): "array (always empty in the sample)"
    case .array(let element?): "array of \(element)"
    case .object: "object"
    case .oneOf(let members): members.map(\.description).sorted().joined(separator: " or ")
    }
  }

  /// The stored form: type names for leaves, `[element]` for arrays, objects as objects.
  public var json: JSONValue {
    switch self {
    case .null, .bool, .number, .string: .string(description)
    case .array(nil): .array([])
    case .array(let element?): .array([element.json])
    case .object(let object): .object(object.mapValues(\.json))
    case .oneOf(let members): ["$oneOf": .array(members.map(\.json).sorted { "\($0)" < "\($1)" })]
    }
  }

  /// Reads the stored form back; `nil` if it is not a shape.
  public init?(json: JSONValue) {
    switch json {
    case "null": self = .null
    case "bool": self = .bool
    case "number": self = .number
    case "string": self = .string
    case .array(let elements) where elements.count <= 1:
      guard let element = elements.first else {
        self = .array(nil)
        return
      }
      guard let shape = JSONShape(json: element) else { return nil }
      self = .array(shape)
    case .object(let object):
      if let members = object["$oneOf"], case .array(let list) = members, object.count == 1 {
        let shapes = list.compactMap(JSONShape.init(json:))
        guard shapes.count == list.count else { return nil }
        self = .oneOf(Set(shapes))
        return
      }
      var shapes: [String: JSONShape] = [:]
      for (key, value) in object {
        guard let shape = JSONShape(json: value) else { return nil }
        shapes[key] = shape
      }
      self = .object(shapes)
    default:
      return nil
    }
  }
}
