/// A failure inside a migration step, with the path in the content where it happened.
///
/// Throw it from a step (typed or JSON-level) when the old data cannot be carried forward; the
/// ``JSONValue`` editing helpers throw it with the path filled in. Keepsake reports it as
/// ``FormatError/migrationFailed(from:to:codingPath:reason:)``, naming the step, and leaves the
/// file untouched.
///
/// For example:
///
/// ```swift
/// guard case .string(let text) = item["text"] else {
///   throw MigrationError("expected a string", path: [.key("text")])
/// }
/// ```
public struct MigrationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What was wrong, in words a developer can act on.
  public var message: String
  /// Where in the content the step failed, from the content's root.
  public var path: [JSONPathComponent]

  /// Creates an error; `path` is relative to the value the step (or helper) was given.
  public init(_ message: String, path: [JSONPathComponent] = []) {
    self.message = message
    self.path = path
  }

  /// The path and the message, as in `[3].text: expected a string`.
  public var description: String {
    "\(JSONPathComponent.render(path)): \(message)"
  }

  /// `error` itself when it is a `MigrationError`, otherwise its description at the current path.
  init(_ error: any Error) {
    if let error = error as? MigrationError {
      self = error
    } else {
      self.init(String(describing: error))
    }
  }

  /// The same error seen from one level up.
  func prefixed(by component: JSONPathComponent) -> MigrationError {
    MigrationError(message, path: [component] + path)
  }
}
