import Foundation

/// Writes a ``JSONValue`` as UTF-8 JSON with sorted keys, so equal values give equal bytes.
///
/// It writes through the encoder's ``JSONOutput`` (the same escaping and integer spelling), with
/// the tree's own choices: keys in `String` order, `/` as it is (or `\/`, as the encoder writes
/// it, for a document that stands for what a model encodes), a double as Swift describes it
/// (`1.0` stays `1.0`, so a number read as a double is read back as one), and an optional
/// indentation for people.
struct JSONTreeWriter: ~Copyable {
  private var output = JSONOutput(capacity: 1024)
  private let prettyPrinted: Bool
  private let escapingSlashes: Bool

  private init(prettyPrinted: Bool, escapingSlashes: Bool) {
    self.prettyPrinted = prettyPrinted
    self.escapingSlashes = escapingSlashes
  }

  static func write(_ value: JSONValue, prettyPrinted: Bool, escapingSlashes: Bool) -> Data {
    var writer = JSONTreeWriter(prettyPrinted: prettyPrinted, escapingSlashes: escapingSlashes)
    writer.write(value, indent: 0)
    if prettyPrinted { writer.output.append(0x0A) }
    return writer.output.takeData()
  }

  private mutating func write(_ value: JSONValue, indent: Int) {
    switch value {
    case .null: output.append(contentsOf: "null")
    case .bool(let bool): output.append(contentsOf: bool ? "true" : "false")
    case .int(let int): output.appendInteger(int)
    // NB: Swift's shortest round-trip description ("0.1", "1e-05", "5e+20") is valid JSON, and a
    // JSONValue never holds a non-finite double.
    case .double(let double): output.append(contentsOf: double.description)
    case .string(let string): writeString(string)
    case .array(let array):
      guard !array.isEmpty else { return output.append(contentsOf: "[]") }
      output.append(UInt8(ascii: "["))
      for (offset, element) in array.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent: indent + 1)
        write(element, indent: indent + 1)
      }
      newline(indent: indent)
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      guard !object.isEmpty else { return output.append(contentsOf: "{}") }
      output.append(UInt8(ascii: "{"))
      for (offset, key) in object.keys.sorted().enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent: indent + 1)
        writeString(key)
        output.append(contentsOf: prettyPrinted ? ": " : ":")
        // The key came from the dictionary, so the lookup cannot miss.
        write(object[key] ?? .null, indent: indent + 1)
      }
      newline(indent: indent)
      output.append(UInt8(ascii: "}"))
    }
  }

  private mutating func writeString(_ string: String) {
    var string = string
    output.append(JSONBytes.quote)
    string.withUTF8 { _ = output.appendEscaped($0, escapingSlash: escapingSlashes) }
    output.append(JSONBytes.quote)
  }

  private mutating func newline(indent: Int) {
    guard prettyPrinted else { return }
    output.append(0x0A)
    for _ in 0..<(indent * 2) { output.append(UInt8(ascii: " ")) }
  }
}
