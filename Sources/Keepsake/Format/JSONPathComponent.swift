import Foundation

/// One step of a path into a JSON document: an object key or an array index.
///
/// Paths appear in ``FormatError`` and ``MigrationError`` messages, rendered the way you would
/// write them in Swift: `content[3].pinned`.
public enum JSONPathComponent: Hashable, Sendable {
  /// A key of an object.
  case key(String)
  /// A position in an array, from zero.
  case index(Int)

  /// Converts a `CodingKey` from a decoding error into a path component.
  ///
  /// `JSONDecoder` reports array positions as keys named `Index 3` with an integer value; those
  /// become ``index(_:)``. Every other key, including the integer keys of a `[Int: Value]`
  /// dictionary, stays a ``key(_:)``.
  init(_ codingKey: any CodingKey) {
    if let index = codingKey.intValue, codingKey.stringValue == "Index \(index)" {
      self = .index(index)
    } else {
      self = .key(codingKey.stringValue)
    }
  }

  /// Renders a path the way Keepsake's errors write it: `[3].pinned`, or `the top level` for an
  /// empty path.
  ///
  /// Keys that are not plain identifiers are quoted (`value["first name"]`) so the rendered
  /// path is never ambiguous. Every coding path in Keepsake's messages is rendered here.
  public static func render(_ path: [JSONPathComponent]) -> String { render(path, root: nil) }

  /// Renders the coding path of a `DecodingError` or `EncodingError` the way Keepsake's errors
  /// write it: `tracks[0].title`, or `the top level`.
  ///
  /// For example, an app that decodes a bundled resource itself can say where it failed:
  ///
  /// ```swift
  /// catch DecodingError.keyNotFound(let key, let context) {
  ///   let path = JSONPathComponent.render(codingPath: context.codingPath + [key])
  ///   print("The catalogue has no \(path).")
  /// }
  /// ```
  public static func render(codingPath: [any CodingKey]) -> String {
    render(codingPath.map(JSONPathComponent.init), root: nil)
  }

  /// Renders a path from `root` (`content`), or from the top level when `root` is `nil`.
  static func render(_ path: [JSONPathComponent], root: String?) -> String {
    var rendered = root ?? ""
    for component in path {
      switch component {
      case .index(let index):
        rendered += "[\(index)]"
      case .key(let key) where isIdentifier(key):
        rendered += rendered.isEmpty ? key : ".\(key)"
      case .key(let key):
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\")
          .replacingOccurrences(of: "\"", with: "\\\"")
        rendered += "[\"\(escaped)\"]"
      }
    }
    return rendered.isEmpty ? "the top level" : rendered
  }

  private static func isIdentifier(_ key: String) -> Bool {
    guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
    return key.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }
}
