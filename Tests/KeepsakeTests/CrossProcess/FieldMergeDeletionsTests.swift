import Foundation
import Testing

@testable import Keepsake

/// A change's deletions replayed on a version that did not take the change in.
@Suite("Replaying a change's deletions")
struct FieldMergeDeletionsTests {
  func document(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: Data(text.utf8))
  }

  /// The deletions replayed; `line`, the version that took the change in: `after` unless given.
  func replayed(
    _ before: String, _ after: String, in target: String, line: String? = nil
  ) throws -> JSONValue {
    var removed: [String] = []
    return FieldMerge.removingDeletions(
      from: try document(before), to: try document(after), in: try document(target),
      lackedBy: try document(line ?? after), removed: &removed)
  }

  @Test("An element the change deleted goes where it is as it was; one changed since stays")
  func deletedUnlessChanged() throws {
    let before = #"[{"id":1,"t":"a"},{"id":2,"t":"b"},{"id":3,"t":"c"}]"#
    let after = #"[{"id":1,"t":"a"}]"#
    let result = try replayed(before, after, in: #"[{"id":2,"t":"b"},{"id":3,"t":"c!"},{"id":4}]"#)
    #expect(result == (try document(#"[{"id":3,"t":"c!"},{"id":4}]"#)))
  }

  @Test("What the change added or edited is not replayed, nor what the target lacks")
  func onlyDeletions() throws {
    let result = try replayed(
      #"[{"id":1,"t":"a"},{"id":2}]"#, #"[{"id":1,"t":"edited"},{"id":5}]"#,
      in: #"[{"id":1,"t":"a"}]"#)
    #expect(result == (try document(#"[{"id":1,"t":"a"}]"#)))
  }

  @Test("Deletions inside elements and members all hold are replayed, and their places named")
  func nested() throws {
    let before = #"{"version":2,"content":{"lists":[{"id":"x","items":[{"id":1},{"id":2}]}]}}"#
    let after = #"{"version":2,"content":{"lists":[{"id":"x","items":[{"id":1}]}]}}"#
    let target =
      #"{"version":2,"content":{"lists":[{"id":"x","items":[{"id":1},{"id":2}]}],"n":1}}"#
    var removed: [String] = []
    let result = FieldMerge.removingDeletions(
      from: try document(before), to: try document(after), in: try document(target),
      lackedBy: try document(after), removed: &removed)
    #expect(
      result
        == (try document(
          #"{"version":2,"content":{"lists":[{"id":"x","items":[{"id":1}]}],"n":1}}"#)))
    #expect(removed == ["content.lists.x.items.2"])
  }

  @Test("An element the line that took the change in still holds is left to the merge")
  func lineHoldsIt() throws {
    let before = #"[{"id":1},{"id":2,"t":"b"}]"#
    let result = try replayed(
      before, #"[{"id":1}]"#, in: before, line: #"[{"id":1},{"id":2,"t":"kept, edited"}]"#)
    #expect(result == (try document(before)))
    // Nor is anything inside an element the line lacks the container of.
    let nested = #"{"lists":[{"id":"x","items":[{"id":1},{"id":2}]}]}"#
    let inside = try replayed(
      nested, #"{"lists":[{"id":"x","items":[{"id":1}]}]}"#, in: nested, line: #"{"lists":[]}"#)
    #expect(inside == (try document(nested)))
  }

  @Test("Arrays without identified elements, and scalars, are left as the target has them")
  func unidentifiedLeftAlone() throws {
    let result = try replayed(
      #"{"tags":["a","b"],"n":1}"#, #"{"tags":["a"]}"#, in: #"{"tags":["a","b"],"n":1}"#)
    #expect(result == (try document(#"{"tags":["a","b"],"n":1}"#)))
  }

  @Test(
    "A change's deletions, as a tree of digests, replay as the change does, and hold none of it")
  func treeOfDigests() throws {
    let before =
      #"{"lists":[{"id":"x","items":[{"id":1,"t":"keep"},{"id":2,"t":"private"}]},{"id":"y"}]}"#
    let after = #"{"lists":[{"id":"x","items":[{"id":1,"t":"keep, edited"}]}]}"#
    let tree = try #require(
      FieldMerge.deletions(from: try document(before), to: try document(after)))
    let text = String(decoding: tree.jsonData(), as: UTF8.self)
    #expect(!text.contains("private") && !text.contains("keep"), "\(text)")
    #expect(FieldMerge.deletions(from: try document(after), to: try document(before)) == nil)
    let target =
      #"{"lists":[{"id":"x","items":[{"id":1,"t":"keep"},{"id":2,"t":"private"}]},{"id":"y","n":1},{"id":"z"}]}"#
    var removed: [String] = []
    let result = FieldMerge.removing(
      tree, in: try document(target), lackedBy: try document(after), removed: &removed)
    #expect(
      result
        == (try document(
          #"{"lists":[{"id":"x","items":[{"id":1,"t":"keep"}]},{"id":"y","n":1},{"id":"z"}]}"#)))
    #expect(removed == ["lists.x.items.2"], "y was changed since: kept")
    #expect(result == (try replayed(before, after, in: target)))
  }
}
