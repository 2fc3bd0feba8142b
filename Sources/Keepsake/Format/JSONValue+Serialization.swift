import Foundation

extension JSONValue {
  /// Parses a UTF-8 JSON document (RFC 8259, strict: no comments, no trailing commas).
  ///
  /// - Throws: ``FormatError/notJSON(byteCount:offset:reason:)`` saying where parsing stopped.
  package init(parsing data: Data) throws(FormatError) {
    do {
      self = try JSONValue(reading: data)
    } catch {
      throw .notJSON(byteCount: data.count, offset: error.offset, reason: error.message)
    }
  }

  /// The value found by following `path` from this value, or `nil` if the path leaves the document.
  func value(at path: [JSONPathComponent]) -> JSONValue? {
    var current = self
    for component in path {
      switch component {
      case .key(let key):
        guard let next = current[key] else { return nil }
        current = next
      case .index(let index):
        guard let next = current[index] else { return nil }
        current = next
      }
    }
    return current
  }
}
