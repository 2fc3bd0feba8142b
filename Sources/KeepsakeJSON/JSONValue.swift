import Foundation

/// A JSON document held as a value, for migration steps that work on raw JSON.
///
/// JSON-level steps (see ``MigrationChain/migratingJSON(to:as:_:)``) receive the stored content as a
/// `JSONValue` and reshape it before it is decoded as the next version's model: renaming a key,
/// moving a field, wrapping a value. Unlike `[String: Any]` it is `Sendable`, `Hashable` and
/// exhaustively switchable.
///
/// Numbers keep the distinction the JSON text made: an integer literal (`3`) is ``int(_:)`` and
/// anything with a fraction or exponent (`3.5`, `1e3`) is ``double(_:)``, so an integer field
/// survives a JSON-level step exactly.
///
/// For example:
///
/// ```swift
/// var item: JSONValue = ["id": "A1", "text": "Hello", "pinned": true]
/// try item.renameKey("text", to: "body")
/// item["tags"] = []
/// ```
public enum JSONValue: Hashable, Sendable {
  /// The JSON literal `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number written without a fraction or exponent that fits in `Int`.
  case int(Int)
  /// Any other number.
  case double(Double)
  /// A string.
  case string(String)
  /// An array, in document order.
  case array([JSONValue])
  /// An object. Key order is not significant in JSON, and Keepsake writes keys sorted.
  case object([String: JSONValue])
}

extension JSONValue {
  /// The JSON type of this value, for messages and shapes: `null`, `bool`, `number`, `string`,
  /// `array` or `object`.
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "bool"
    case .int, .double: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The JSON type of this value with an article, as used in error messages ("a string").
  package var typeDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a bool"
    case .int, .double: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value at `key` when this is an object; `nil` for a missing key or a non-object.
  ///
  /// Setting a key on an object adds or replaces it; setting `nil` removes it. Setting a key on
  /// a value that is not an object does nothing; use ``renameKey(_:to:)`` or
  /// ``setValue(_:forKey:)`` when that must be an error.
  public subscript(key: String) -> JSONValue? {
    get {
      guard case .object(let object) = self else { return nil }
      return object[key]
    }
    set {
      guard case .object(var object) = self else { return }
      // NB: Reassigning `self` first releases the enum's reference to the dictionary, so the
      // mutation below does not copy it.
      self = .null
      object[key] = newValue
      self = .object(object)
    }
  }

  /// The element at `index` when this is an array and the index is in bounds; otherwise `nil`.
  public subscript(index: Int) -> JSONValue? {
    guard case .array(let array) = self, array.indices.contains(index) else { return nil }
    return array[index]
  }
}

extension JSONValue: ExpressibleByNilLiteral {
  /// Creates ``null``.
  public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
  /// Creates ``bool(_:)``.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
  /// Creates ``int(_:)``.
  public init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
  /// Creates ``double(_:)``.
  public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
  /// Creates ``string(_:)``.
  public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
  /// Creates ``array(_:)``.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
  /// Creates ``object(_:)``; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
