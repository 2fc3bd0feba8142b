import Foundation

/// Writes a ``JSONValue`` as UTF-8 JSON with sorted keys, so equal values give equal bytes.
struct JSONWriter {
  private var output: [UInt8] = []
  private let prettyPrinted: Bool

  private init(prettyPrinted: Bool) {
    self.prettyPrinted = prettyPrinted
  }

  static func write(_ value: JSONValue, prettyPrinted: Bool) -> Data {
    var writer = JSONWriter(prettyPrinted: prettyPrinted)
    writer.output.reserveCapacity(1024)
    writer.write(value, indent: 0)
    if prettyPrinted { writer.output.append(0x0A) }
    return Data(writer.output)
  }

  private mutating func write(_ value: JSONValue, indent: Int) {
    switch value {
    case .null: append("null")
    case .bool(let bool): append(bool ? "true" : "false")
    case .int(let int): append(String(int))
    // NB: Swift's shortest round-trip description ("0.1", "1e-05", "5e+20") is valid JSON, and a
    // JSONValue never holds a non-finite double.
    case .double(let double): append(double.description)
    case .string(let string): writeString(string)
    case .array(let array):
      guard !array.isEmpty else { return append("[]") }
      output.append(UInt8(ascii: "["))
      for (offset, element) in array.enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent: indent + 1)
        write(element, indent: indent + 1)
      }
      newline(indent: indent)
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      guard !object.isEmpty else { return append("{}") }
      output.append(UInt8(ascii: "{"))
      for (offset, key) in object.keys.sorted().enumerated() {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent: indent + 1)
        writeString(key)
        append(prettyPrinted ? ": " : ":")
        // The key came from the dictionary, so the lookup cannot miss.
        write(object[key] ?? .null, indent: indent + 1)
      }
      newline(indent: indent)
      output.append(UInt8(ascii: "}"))
    }
  }

  private mutating func writeString(_ string: String) {
    output.append(UInt8(ascii: "\""))
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""): append("\\\"")
      case UInt8(ascii: "\\"): append("\\\\")
      case 0x0A: append("\\n")
      case 0x0D: append("\\r")
      case 0x09: append("\\t")
      case 0x08: append("\\b")
      case 0x0C: append("\\f")
      case ..<0x20:
        let hex = String(byte, radix: 16)
        append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }

  private mutating func newline(indent: Int) {
    guard prettyPrinted else { return }
    output.append(0x0A)
    output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
  }

  private mutating func append(_ text: String) {
    output.append(contentsOf: text.utf8)
  }
}
