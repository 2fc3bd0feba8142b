/// A `DecodingError` restated as a path in the file and a ``FormatError/DecodingProblem``.
struct DecodingFailure {
  /// The failing path, relative to the value that was being decoded.
  var path: [JSONPathComponent]
  var problem: FormatError.DecodingProblem

  /// Translates `error` into a path and a problem.
  ///
  /// `lookup` finds the JSON value at a path (relative to the same value) so a type mismatch can
  /// say what was found instead; it is only called on this failure path.
  init(_ error: DecodingError, lookup: ([JSONPathComponent]) -> JSONValue?) {
    switch error {
    case .typeMismatch(let type, let context):
      path = context.codingPath.map(JSONPathComponent.init)
      problem = .typeMismatch(expected: Self.name(of: type), found: lookup(path)?.typeDescription)
    case .valueNotFound(let type, let context):
      path = context.codingPath.map(JSONPathComponent.init)
      problem = .missingValue(expected: Self.name(of: type))
    case .keyNotFound(let key, let context):
      path = (context.codingPath + [key]).map(JSONPathComponent.init)
      problem = .missingKey
    case .dataCorrupted(let context):
      path = context.codingPath.map(JSONPathComponent.init)
      problem = .invalidValue(context.debugDescription)
    @unknown default:
      path = []
      problem = .invalidValue(String(describing: error))
    }
  }

  /// The path without its first component, for errors raised inside an envelope's `content`.
  func droppingRoot() -> DecodingFailure {
    var copy = self
    copy.path = Array(path.dropFirst())
    return copy
  }

  /// `JSONDecoder` names containers `Array<Any>` and `Dictionary<String, Any>`; say it in JSON.
  private static func name(of type: Any.Type) -> String {
    if type == [Any].self { return "an array" }
    if type == [String: Any].self { return "an object" }
    return String(describing: type)
  }
}
