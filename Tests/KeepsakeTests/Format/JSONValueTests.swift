import Foundation
import Keepsake
import Testing

@Suite("JSON values")
struct JSONValueTests {
  @Test(
    "Parsing keeps types, integers and unicode",
    arguments: [
      (#"{"a":[1,2.5,-3e2,true,null,"x"]}"#, ["a": [1, 2.5, -300.0, true, nil, "x"]] as JSONValue),
      (#""caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \n""#, "café 😀 \"q\" \\ / \n" as JSONValue),
      (" \n[ ] ", [] as JSONValue),
      ("9223372036854775807", .int(Int.max)),
      ("\u{FEFF}{}", [:] as JSONValue),
    ])
  func parses(json: String, expected: JSONValue) throws {
    #expect(try JSONValue(parsing: Data(json.utf8)) == expected)
  }

  @Test(
    "Invalid JSON says where and why",
    arguments: [
      ("[1,]", 3, "unexpected character"),
      (#"{"a" 1}"#, 5, "expected ':' after a key"),
      ("[01]", 2, "expected ',' or ']' in an array"),
      (#""\ud800""#, 7, "unpaired surrogate in a \\u escape"),
      ("\"a\u{01}\"", 2, "unescaped control character in a string"),
      ("tru", 0, "unexpected end of data"),
      ("{} x", 3, "unexpected text after the JSON value"),
      ("1e999", 0, "number out of range"),
    ])
  func rejects(json: String, offset: Int, reason: String) {
    let data = Data(json.utf8)
    #expect(throws: FormatError.notJSON(byteCount: data.count, offset: offset, reason: reason)) {
      try JSONValue(parsing: data)
    }
  }

  @Test("Invalid UTF-8 inside a string is refused, not repaired")
  func invalidUTF8() {
    #expect(
      throws: FormatError.notJSON(byteCount: 4, offset: 3, reason: "invalid UTF-8 in a string")
    ) {
      try JSONValue(parsing: Data([0x22, 0xFF, 0xFE, 0x22]))
    }
  }

  @Test("Writing sorts keys and escapes control characters")
  func writes() {
    let value: JSONValue = ["b": [1, 2.5, nil], "a": "q\"\n\u{01}é"]
    #expect(
      String(decoding: value.jsonData(), as: UTF8.self) == #"{"a":"q\"\n\u0001é","b":[1,2.5,null]}"#
    )
    #expect(
      String(decoding: JSONValue.object(["a": [1]]).jsonData(prettyPrinted: true), as: UTF8.self)
        == "{\n  \"a\": [\n    1\n  ]\n}\n")
  }

  @Test("Editing helpers rename, add and remove keys")
  func editing() throws {
    var value: JSONValue = [["text": "a"], ["text": "b", "tags": ["x"]]]
    try value.updateElements { item in
      try item.renameKey("text", to: "body")
      try item.addMissingKey("tags", value: [])
    }
    #expect(value == [["body": "a", "tags": []], ["body": "b", "tags": ["x"]]])
    var object: JSONValue = ["a": 1, "b": 2]
    #expect(try object.removeKey("a") == 1)
    try object.setValue("x", forKey: "c")
    try object.updateValue(forKey: "b") { $0 = .int(3) }
    #expect(object == ["b": 3, "c": "x"])
  }

  @Test("Editing helpers fail with the path to the offending value")
  func editingFailures() {
    var value: JSONValue = [["items": [["a": 1], "oops"]]]
    #expect(
      throws: MigrationError(
        "expected an object, found a string", path: [.index(0), .key("items"), .index(1)])
    ) {
      try value.updateElements { item in
        try item.updateValue(forKey: "items") { items in
          try items.updateElements { try $0.renameKey("a", to: "b") }
        }
      }
    }
    #expect(
      MigrationError(
        "expected an object, found a string", path: [.index(0), .key("items"), .index(1)]
      ).description
        == "[0].items[1]: expected an object, found a string")
  }
}
