import Foundation

/// Documents for the decoders to disagree on: a fixed table of the corners found while building
/// Keepsake's codec, and random JSON text in every spelling Foundation accepts.
enum DiffInputs {
  /// The corners: Foundation's laxities (trailing commas, lazily checked numbers, escapes and
  /// UTF-8 in values nobody decodes), its limits (512 levels, number ranges), byte order marks
  /// and UTF-16/32 detection, and near misses of each.
  static let edges: [[UInt8]] = {
    var texts = [
      "", " ", "\n", "null", "true", "false", "1", "-0", "0", "01", "-", "1.", ".5", "1e", "1e+",
      "1E5", "-1.5e-3", "1.0", "1e2", "1.5", "123456789012345678.5", "9223372036854775807",
      "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e400", "1e-400",
      "0e-400", "2e-324", "3e-324", "1.7976931348623159e308", "\"\"", "\"a\"", "\"\\u00e9\"",
      "\"\\uD83D\\uDE00\"", "\"\\uD83D\"", "\"\\uDC00\"", "\"\\uD83Dx\"", "\"\\uZZZZ\"", "\"\\q\"",
      "\"a\tb\"", "\"\\u0000\"", "\"\\/\"", "\"\u{7F}\"", "[]", "[1,2,]", "[,]", "[1,,2]", "[1 2]",
      "{}", "{,}", "{\"a\":1,}", "{\"a\":1,\"a\":2}", "{\"a\" 1}", "{1:2}", "{\"a\":}", "[1x]",
      "[1-2]", "{\"a\":1,\"b\":01}", "{\"a\":1,\"b\":1-2.e}", "{\"a\":1,\"b\":\"\\q\"}",
      "{\"a\":1,\"b\":\"\\u12\"}", "{\"\\u0061\":1,\"a\":2}", "{\"\\q\":1}", "{\"\u{1}\":1}",
      "{\"\u{212A}\":5,\"K\":6}", "{\"é\":1,\"e\u{301}\":2}", "{\"a\":tru}", "{\"a\":nul}", "[nan]",
      "[NaN]", "[Infinity]", "[-Infinity]", "[\"NaN\"]", "[0x10]", "[+1]", "{\"a\":1} x",
      "{\"a\":1}\u{C}", "{\"a\":1}\u{A0}", " [ 1 , 2 ] ", "\t{\r\n\"a\"\t:\n1\r}\n",
      "[\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\",\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\"]",
      "[\"E621E1F8C36C495A93FC0C247A3E6E5F\",\"{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}\"]",
      "[\"\\u0045621E1F8-C36C-495A-93FC-0C247A3E6E5F\"]",
      "[\"AQID/w==\",\"AQID/w\",\"AQ ID\",\"\"]",
      "[\"https://a.b\",\"\",\"%\",\"a b\"]", "[12.5,0,-1e10]", "[true,false,null,1,\"s\",[],{}]",
      "{\"id\":\"0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01\",\"body\":\"x\",\"pinned\":true,\"tags\":[]}",
      "[{\"id\":\"0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01\",\"body\":\"x\",\"pinned\":null,\"tags\":[]}]",
      "[{\"id\":\"0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01\",\"body\":1,\"pinned\":true,\"tags\":[1]}]",
      "{\"content\":[],\"version\":3}", "{\"version\":3,\"content\":[],\"content\":1}",
      "{\"super\":5}", "[[[[]]]]", "[{\"a\":[{\"b\":[null]}]}]",
    ]
    for depth in [1, 100, 511, 512, 513, 514, 1000, 10_000, 100_000] {
      for shape in Mutator.deepShapes {
        texts.append(String(decoding: shape.make(depth), as: UTF8.self))
      }
    }
    var edges = texts.map { Array($0.utf8) }
    let object = Array("{\"a\":1}".utf8)
    edges.append([0xEF, 0xBB, 0xBF] + object)
    edges.append([0xEF, 0xBB] + object)
    edges.append([0xFE, 0xFF] + object)
    edges.append([0xFF, 0xFE] + object)
    edges.append([0xFE, 0xFF, 0, 0] + object)
    edges.append(Array("{\"a\":1}".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
    edges.append(Array("{\"a\":1}".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
    edges.append(
      [0xFE, 0xFF] + Array("[\"é\"]".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
    edges.append(Array("[1]".unicodeScalars.flatMap { [0, 0, 0, UInt8($0.value)] }))
    edges.append(Array("[1]".unicodeScalars.flatMap { [UInt8($0.value), 0, 0, 0] }))
    edges.append([0, 0x31])
    edges.append([0x31, 0])
    edges.append([0, 0x31, 0])
    edges.append(Array("[\"".utf8) + [0xC3] + Array("\\u00e9\"]".utf8))
    edges.append(Array("[\"".utf8) + [0xFF] + Array("\"]".utf8))
    edges.append(Array("{\"a\":1,\"b\":\"".utf8) + [0xFF] + Array("\"}".utf8))
    edges.append(Array("{\"a\":1,\"".utf8) + [0xFF] + Array("\":1}".utf8))
    return edges
  }()

  /// Random JSON text: valid documents written with the freedoms JSON and Foundation allow
  /// (whitespace, escapes for any character, exponents, trailing commas, duplicate keys).
  static func text(using values: inout DiffValues, depth: Int = 4) -> [UInt8] {
    var out: [UInt8] = []
    if values.chance(3) { out += [0xEF, 0xBB, 0xBF] }
    write(&out, values: &values, depth: depth)
    if values.chance(20) { out += whitespace(&values) }
    return out
  }

  /// A random top-level array, and the same array as a writer changed it.
  ///
  /// The change: an element appended, or a byte inserted, deleted or replaced, half the time
  /// where an element ends (a digit after a number makes it another number, the case that could
  /// fool the memo of an array read again). Returns both, and what changed.
  static func arrayEdit(using values: inout DiffValues) -> (
    before: [UInt8], after: [UInt8], edit: String
  ) {
    var before: [UInt8] = [UInt8(ascii: "[")]
    // Where each element ends: edits there are the ones that test where an element stops.
    var ends: [Int] = []
    for index in 0..<Int.random(in: 0...6, using: &values.random) {
      if index > 0 { before.append(UInt8(ascii: ",")) }
      write(&before, values: &values, depth: 1)
      ends.append(before.count)
    }
    before.append(UInt8(ascii: "]"))
    var after = before
    let position =
      !ends.isEmpty && values.chance(50)
      ? values.pick(ends) : Int.random(in: 1..<after.count, using: &values.random)
    let byte = values.pick(Array("0123456789.eE-+,]}\" tn".utf8))
    switch Int.random(in: 0..<4, using: &values.random) {
    case 0:
      var element: [UInt8] = []
      write(&element, values: &values, depth: 1)
      after.insert(
        contentsOf: (after.count > 2 ? [UInt8(ascii: ",")] : []) + element, at: after.count - 1)
      return (before, after, "element appended")
    case 1:
      after.insert(byte, at: position)
      return (before, after, "byte \(byte) inserted at \(position)")
    case 2:
      after.remove(at: position)
      return (before, after, "byte at \(position) deleted")
    default:
      after[position] = byte
      return (before, after, "byte at \(position) replaced by \(byte)")
    }
  }

  private static func whitespace(_ values: inout DiffValues) -> [UInt8] {
    Array(values.pick(["", " ", "\n", "\t", "\r\n", "  \t "]).utf8)
  }

  private static func write(_ out: inout [UInt8], values: inout DiffValues, depth: Int) {
    out += whitespace(&values)
    switch Int.random(in: 0..<(depth > 0 ? 10 : 7), using: &values.random) {
    case 0: out += Array("null".utf8)
    case 1: out += Array((values.chance(50) ? "true" : "false").utf8)
    case 2: out += Array(String(values.integer(Int.self)).utf8)
    case 3: out += Array(number(&values).utf8)
    case 4, 5: writeString(&out, values.string(), values: &values)
    case 6:
      out += Array(
        values.pick([
          "\"0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01\"", "\"AQID/w==\"", "\"https://a.b/c\"", "12.5",
          "1e2", "-0", "255", "-129", "1.0",
        ]).utf8)
    case 7, 8:
      out.append(UInt8(ascii: "["))
      let count = Int.random(in: 0...4, using: &values.random)
      for index in 0..<count {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        write(&out, values: &values, depth: depth - 1)
      }
      if count > 0, values.chance(10) { out.append(UInt8(ascii: ",")) }
      out += whitespace(&values)
      out.append(UInt8(ascii: "]"))
    default:
      out.append(UInt8(ascii: "{"))
      let count = Int.random(in: 0...4, using: &values.random)
      for index in 0..<count {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out += whitespace(&values)
        writeString(&out, values.key(), values: &values)
        out += whitespace(&values)
        out.append(UInt8(ascii: ":"))
        write(&out, values: &values, depth: depth - 1)
      }
      if count > 0, values.chance(10) { out.append(UInt8(ascii: ",")) }
      out += whitespace(&values)
      out.append(UInt8(ascii: "}"))
    }
  }

  private static func number(_ values: inout DiffValues) -> String {
    switch Int.random(in: 0..<5, using: &values.random) {
    case 0: return "\(values.finiteDouble())".replacingOccurrences(of: "e+", with: "E+")
    case 1:
      return
        "\(Int.random(in: -999...999, using: &values.random)).\(Int.random(in: 0...999, using: &values.random))e\(Int.random(in: -30...30, using: &values.random))"
    case 2:
      return values.pick([
        "0.5", "-0.0", "1E-2", "123456789012345678901234567890", "5e-324", "1e308",
      ])
    case 3: return String(values.integer(UInt64.self))
    default: return "\(values.float())"
    }
  }

  /// A string literal, each character escaped or not at random (always when it must be).
  private static func writeString(_ out: inout [UInt8], _ string: String, values: inout DiffValues)
  {
    out.append(UInt8(ascii: "\""))
    for scalar in string.unicodeScalars {
      let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
      if mustEscape || values.chance(5) {
        switch scalar {
        case "\"": out += Array("\\\"".utf8)
        case "\\": out += Array("\\\\".utf8)
        case "/" where values.chance(50): out += Array("\\/".utf8)
        case "\n" where values.chance(50): out += Array("\\n".utf8)
        default:
          for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16, uppercase: values.chance(50))
            out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
          }
        }
      } else {
        out += Array(String(scalar).utf8)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
