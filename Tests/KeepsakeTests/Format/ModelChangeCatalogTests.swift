import Foundation
import Keepsake
import KeepsakeTesting
import Testing

/// What each common model change does to a file written before it, and which check catches it.
///
/// Every test reads `before`, a file written by version 1 of a note model `{"id", "text"}`, with
/// the changed model, still declared as version 1 (the mistake under study).
@Suite("Catalogue of model changes")
struct ModelChangeCatalogTests {
  struct Original: Codable, Sendable {
    var id: Int
    var text: String
  }

  enum Kind: String, Codable, Sendable {
    case note
    case checklist  // the new case
  }

  static let before = Data(#"{"content":[{"id":1,"text":"hello"}],"version":1}"#.utf8)

  /// A format of `Model` still at version 1.
  enum Version1<Model: Codable & Sendable>: VersionedFormat {
    typealias Value = [Model]
    static var currentVersion: Int { 1 }
  }

  static let recorded: JSONShape = .object([
    "content": .array(.object(["id": .number, "text": .string])), "version": .number,
  ])

  static func drift<Model: Codable & Sendable>(_ sample: Model) throws -> [String] {
    let shape = try FormatDrift.shape(of: [sample], as: Version1<Model>.self)
    return ShapeChange.changes(from: recorded, to: shape).map(\.description)
  }

  @Test("Add an optional field: old files read as nil; the drift check asks to re-record")
  func addOptional() throws {
    struct Changed: Codable, Sendable {
      var id: Int
      var text: String
      var color: String?
    }
    #expect(try Version1<Changed>.decode(Self.before).first?.color == nil)
    #expect(
      try Self.drift(Changed(id: 1, text: "a", color: "red")) == [
        "added key `color` of type string at `content[].color`"
      ])
  }

  @Test(
    "Add a field with a property default: old files fail (keyNotFound); fixtures and drift catch it"
  )
  func addWithSynthesizedDefault() throws {
    struct Changed: Codable, Sendable {
      var id: Int
      var text: String
      var pinned = false
    }
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: "content[0].pinned", problem: .missingKey)
    ) {
      try Version1<Changed>.decode(Self.before)
    }
    #expect(
      try Self.drift(Changed(id: 1, text: "a")) == [
        "added key `pinned` of type bool at `content[].pinned`"
      ])
  }

  @Test("Add a field with @Defaulted: old files read with the default; re-record the shape")
  func addWithSafeDefault() throws {
    struct Changed: Codable, Sendable {
      var id: Int
      var text: String
      @Defaulted<DefaultValue.False> var pinned: Bool = false
    }
    #expect(try Version1<Changed>.decode(Self.before).first?.pinned == false)
    #expect(
      try Self.drift(Changed(id: 1, text: "a")) == [
        "added key `pinned` of type bool at `content[].pinned`"
      ])
  }

  @Test("Remove a field: old files still read, but the next save drops the data; drift catches it")
  func removeField() throws {
    struct Changed: Codable, Sendable { var id: Int }
    let decoded = try Version1<Changed>.decode(Self.before)
    let resaved = try Version1<Changed>.encode(decoded)
    #expect(String(decoding: resaved, as: UTF8.self) == #"{"content":[{"id":1}],"version":1}"#)
    #expect(
      try Self.drift(Changed(id: 1)) == ["removed key `text` (was string) at `content[].text`"])
  }

  @Test("Rename a field: old files fail (keyNotFound); fixtures catch it, drift shows remove + add")
  func renameField() throws {
    struct Changed: Codable, Sendable {
      var id: Int
      var body: String
    }
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: "content[0].body", problem: .missingKey)
    ) {
      try Version1<Changed>.decode(Self.before)
    }
    #expect(
      try Self.drift(Changed(id: 1, body: "a")) == [
        "added key `body` of type string at `content[].body`",
        "removed key `text` (was string) at `content[].text`",
      ])
  }

  @Test("Change a field's type: old files fail (type mismatch); fixtures and drift catch it")
  func changeType() throws {
    struct Changed: Codable, Sendable {
      var id: String
      var text: String
    }
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: "content[0].id",
        problem: .typeMismatch(expected: "String", found: "a number"))
    ) { try Version1<Changed>.decode(Self.before) }
    #expect(
      try Self.drift(Changed(id: "1", text: "a")) == [
        "type changed at `content[].id`: number → string"
      ])
  }

  @Test(
    "Add an enum case: old files read; an older app cannot read new files, and no shape check sees it"
  )
  func addEnumCase() throws {
    struct OldModel: Codable, Sendable {
      var id: Int
      var kind: String
    }
    struct OlderApp: Codable, Sendable {
      enum Kind: String, Codable, Sendable { case note }
      var id: Int
      var kind: Kind
    }
    struct Changed: Codable, Sendable {
      var id: Int
      var kind: Kind
    }
    let old = try Version1<OldModel>.encode([OldModel(id: 1, kind: "note")])
    #expect(try Version1<Changed>.decode(old).first?.kind == .note)
    let new = try Version1<Changed>.encode([Changed(id: 1, kind: .checklist)])
    #expect(
      throws: FormatError.decodingFailed(
        version: 1, codingPath: "content[0].kind",
        problem: .invalidValue("Cannot initialize Kind from invalid String value checklist"))
    ) { try Version1<OlderApp>.decode(new) }
    let before = try FormatDrift.shape(
      of: [Changed(id: 1, kind: .note)], as: Version1<Changed>.self)
    let after = try FormatDrift.shape(
      of: [Changed(id: 1, kind: .checklist)], as: Version1<Changed>.self)
    #expect(before == after)
  }

  @Test("Reorder fields: no effect; keys are written sorted")
  func reorderFields() throws {
    struct Changed: Codable, Sendable {
      var text: String
      var id: Int
    }
    #expect(try Version1<Changed>.decode(Self.before).first?.text == "hello")
    #expect(try Version1<Changed>.encode([Changed(text: "hello", id: 1)]) == Self.before)
    #expect(try Self.drift(Changed(text: "a", id: 1)).isEmpty)
  }
}
