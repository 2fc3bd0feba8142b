/// Why some bytes are not a JSON document, with the byte offset where reading stopped.
package struct JSONSyntaxError: Error, Equatable, Sendable {
  /// The offset of the byte where reading stopped, from the start of the document.
  package var offset: Int
  /// What was wrong there, in words ("expected ':' after a key").
  package var message: String
}
