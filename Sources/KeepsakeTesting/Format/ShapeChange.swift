/// One difference between a recorded shape and the current one, with its path
/// (`content[].tags`: `[]` stands for every element of an array).
///
/// A rename shows as a removed key and an added key.
public enum ShapeChange: Hashable, Sendable, CustomStringConvertible {
  /// A key the recorded shape did not have.
  case added(path: String, shape: JSONShape)
  /// A key the current shape no longer has.
  case removed(path: String, shape: JSONShape)
  /// The same key with another JSON type.
  case typeChanged(path: String, from: JSONShape, to: JSONShape)

  /// The changes from `old` to `new`, sorted by path.
  public static func changes(from old: JSONShape, to new: JSONShape) -> [ShapeChange] {
    var changes: [ShapeChange] = []
    collect(from: old, to: new, path: "", into: &changes)
    return changes
  }

  private static func collect(
    from old: JSONShape,
    to new: JSONShape,
    path: String,
    into changes: inout [ShapeChange]
  ) {
    switch (old, new) {
    case (.object(let old), .object(let new)):
      for key in Set(old.keys).union(new.keys).sorted() {
        let keyPath = path.isEmpty ? key : "\(path).\(key)"
        switch (old[key], new[key]) {
        case (let old?, let new?): collect(from: old, to: new, path: keyPath, into: &changes)
        case (let old?, nil): changes.append(.removed(path: keyPath, shape: old))
        case (nil, let new?): changes.append(.added(path: keyPath, shape: new))
        case (nil, nil): break
        }
      }
    case (.array(let old?), .array(let new?)):
      collect(from: old, to: new, path: path + "[]", into: &changes)
    case (.array(nil), .array), (.array, .array(nil)):
      // An empty sample array says nothing about its elements; not a change.
      break
    default:
      if old != new { changes.append(.typeChanged(path: path, from: old, to: new)) }
    }
  }

  /// The change in a sentence: "added key `x` of type string at `content[].x`".
  public var description: String {
    switch self {
    case .added(let path, let shape):
      "added key `\(Self.key(of: path))` of type \(shape) at `\(path)`"
    case .removed(let path, let shape):
      "removed key `\(Self.key(of: path))` (was \(shape)) at `\(path)`"
    case .typeChanged(let path, let from, let to):
      "type changed at `\(path)`: \(from) → \(to)"
    }
  }

  private static func key(of path: String) -> String {
    String(path.split(separator: ".").last ?? Substring(path))
  }
}
