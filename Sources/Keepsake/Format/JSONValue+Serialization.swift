import Foundation

extension JSONValue {
  /// Parses a UTF-8 JSON document (RFC 8259, strict: no comments, no trailing commas).
  ///
  /// - Throws: ``FormatError/notJSON(byteCount:offset:reason:)`` saying where parsing stopped.
  package init(parsing data: Data) throws(FormatError) {
    do {
      self = try JSONParser.parse(data)
    } catch {
      throw .notJSON(byteCount: data.count, offset: error.offset, reason: error.message)
    }
  }

  /// The value as UTF-8 JSON with sorted keys: equal values give equal bytes.
  ///
  /// - Parameter prettyPrinted: Indent with two spaces, one key or element per line.
  package func jsonData(prettyPrinted: Bool = false) -> Data {
    JSONWriter.write(self, prettyPrinted: prettyPrinted)
  }
}
