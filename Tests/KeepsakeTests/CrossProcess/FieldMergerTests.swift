import Foundation
import Testing

@testable import Keepsake

/// The merge of JSON documents against a base that is, or is not, the version both sides
/// started from.
@Suite("Merging documents against a base")
struct FieldMergerTests {
  func document(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: Data(text.utf8))
  }

  func ids(_ value: JSONValue) -> [String] {
    guard case .array(let elements) = value else { return [] }
    return elements.compactMap { element in
      guard case .object(let members) = element, case .int(let id)? = members["id"] else {
        return nil
      }
      return "\(id)"
    }
  }

  @Test("Against the common version, an element one side deleted and the other left is gone")
  func commonBaseDeletes() throws {
    let result = FieldMerge.merge(
      base: try document(#"[{"id":1},{"id":2}]"#), ours: try document(#"[{"id":1}]"#),
      theirs: try document(#"[{"id":1},{"id":2},{"id":3}]"#))
    #expect(ids(result.value) == ["1", "3"])
    #expect(result.conflicts.isEmpty && result.guessed.isEmpty)
  }

  @Test("Against an older base, an element only one side holds is kept and named as guessed")
  func olderBaseGuesses() throws {
    // 2 was added after the base, then deleted here; 3 was added there.
    let result = FieldMerge.merge(
      base: try document(#"[{"id":1}]"#), ours: try document(#"[{"id":1},{"id":4}]"#),
      theirs: try document(#"[{"id":1},{"id":2},{"id":3}]"#), baseIsCommon: false)
    #expect(Set(ids(result.value)) == ["1", "2", "3", "4"])
    #expect(Set(result.guessed) == ["2", "3", "4"])
    #expect(result.conflicts.isEmpty, "nothing of either side was dropped: no copy needed")
  }

  @Test("A side equal to a base that is not the common version still has its guesses named")
  func sideEqualToTheBase() throws {
    // Everything here was deleted, back to the key's default; theirs still holds it.
    let result = FieldMerge.merge(
      base: try document("[]"), ours: try document("[]"),
      theirs: try document(#"[{"id":7}]"#), baseIsCommon: false)
    #expect(ids(result.value) == ["7"])
    #expect(result.guessed == ["7"])
    let common = FieldMerge.merge(
      base: try document("[]"), ours: try document("[]"), theirs: try document(#"[{"id":7}]"#))
    #expect(common.guessed.isEmpty, "against the common version it is their insert")
  }
}
