import Foundation

extension JSONValue {
  /// Reads a UTF-8 JSON document strictly (RFC 8259: no comments, no trailing commas; a byte
  /// order mark is skipped).
  ///
  /// - Throws: ``JSONSyntaxError`` saying where and why reading stopped.
  package init(reading data: Data) throws(JSONSyntaxError) {
    self = try JSONReader.value(of: data)
  }

  /// The value as UTF-8 JSON with sorted keys: equal values give equal bytes.
  ///
  /// - Parameters:
  ///   - prettyPrinted: Indent with two spaces, one key or element per line.
  ///   - escapingSlashes: Write `/` as `\/`, as the encoder (and Foundation's) does: for a
  ///     document written in place of a model's own encoding.
  package func jsonData(prettyPrinted: Bool = false, escapingSlashes: Bool = false) -> Data {
    JSONTreeWriter.write(self, prettyPrinted: prettyPrinted, escapingSlashes: escapingSlashes)
  }
}
