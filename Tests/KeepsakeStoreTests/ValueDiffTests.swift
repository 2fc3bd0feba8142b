import Foundation
import Keepsake
import KeepsakeTesting
import Testing

@Suite("ValueDiff and ValueDump")
struct ValueDiffTests {
  private struct Point: Equatable {
    var x: Int
    var y: Int
  }

  private enum Shape: Equatable {
    case empty
    case circle(radius: Double)
    case line(Point, Point)
  }

  private struct Canvas {
    var title: String
    var shapes: [Shape]
    var selected: Point?
  }

  @Test("A struct renders one field per line")
  func structRendering() {
    #expect(
      ValueDump.render(Point(x: 1, y: 2)) == """
        ValueDiffTests.Point(
          x: 1,
          y: 2
        )
        """)
  }

  @Test("A changed struct field is the only changed line")
  func structDiff() {
    #expect(
      ValueDiff.diff(Point(x: 1, y: 2), Point(x: 1, y: 3)) == """
          ValueDiffTests.Point(
            x: 1,
        \u{2212}   y: 2
        +   y: 3
          )
        """)
  }

  @Test("Enums render as their case and payload")
  func enumRendering() {
    #expect(ValueDump.render(Shape.empty) == "ValueDiffTests.Shape.empty")
    #expect(ValueDump.render(Shape.circle(radius: 2)) == "ValueDiffTests.Shape.circle(radius: 2.0)")
    #expect(
      ValueDiff.diff(Shape.circle(radius: 2), Shape.empty) == """
        \u{2212} ValueDiffTests.Shape.circle(radius: 2.0)
        + ValueDiffTests.Shape.empty
        """)
  }

  @Test("Arrays render with their indices; an added element is one added block")
  func arrayDiff() {
    #expect(ValueDump.render([Int]()) == "[]")
    #expect(
      ValueDiff.diff([1, 2], [1, 2, 3]) == """
          [
            [0]: 1,
        \u{2212}   [1]: 2
        +   [1]: 2,
        +   [2]: 3
          ]
        """)
  }

  @Test("Optionals render as their value or nil")
  func optionalRendering() {
    #expect(ValueDump.render(Int?.none as Any) == "nil")
    #expect(ValueDump.render(Int?.some(3) as Any) == "3")
    #expect(ValueDiff.diff(Int?.none as Any, Int?.some(3) as Any) == "\u{2212} nil\n+ 3")
  }

  @Test("Equal values have no diff")
  func equalValues() {
    #expect(ValueDiff.diff(Point(x: 1, y: 2), Point(x: 1, y: 2)) == nil)
  }

  @Test("A nested change keeps nearby lines and collapses the rest")
  func nestedDiff() {
    let before = Canvas(
      title: "Sketch",
      shapes: [.empty, .line(Point(x: 0, y: 0), Point(x: 1, y: 1)), .circle(radius: 1)],
      selected: nil)
    var after = before
    after.shapes[1] = .line(Point(x: 0, y: 0), Point(x: 5, y: 1))
    #expect(
      ValueDiff.diff(before, after) == """
          … (8 unchanged)
                ),
                ValueDiffTests.Point(
        \u{2212}         x: 1,
        +         x: 5,
                  y: 1
                )
          … (5 unchanged)
        """)
  }

  @Test("A Shared value renders as its current value, noting its key")
  func sharedRendering() {
    let shared = Shared(.inMemory("diff-count"), default: 3)
    #expect(ValueDump.render(shared) == #"Shared(.inMemory("diff-count")) 3"#)
    struct Holder { @Shared(.inMemory("diff-names")) var names = ["a"] }
    #expect(
      ValueDump.render(Holder()) == """
        ValueDiffTests.Holder(
          names: Shared(.inMemory(\"diff-names\")) [
            [0]: "a"
          ]
        )
        """)
  }

  @Test("A reader and a projection render as their values, naming the key and the part")
  func readerAndProjectionRendering() {
    struct Settings: Sendable { var theme = "dark" }
    let settings = Shared(.inMemory("diff-settings"), default: Settings())
    #expect(
      ValueDump.render(SharedReader(settings).theme)
        == #"SharedReader(.inMemory("diff-settings")[dynamicMember: \Settings.theme]) "dark""#)
    #expect(
      ValueDump.render(settings.theme)
        == ValueDump.render(SharedReader(settings).theme)
        .replacingOccurrences(of: "SharedReader(", with: "Shared("))
    #expect(ValueDump.render(Shared(value: 2)) == "Shared(value) 2")
  }

  @Test("Strings are quoted and escaped; dictionaries and sets are sorted")
  func leavesAndUnorderedCollections() {
    #expect(ValueDump.render("a\n\"b\"") == #""a\n\"b\"""#)
    #expect(
      ValueDump.render(["b": 2, "a": 1]) == """
        [
          "a": 1,
          "b": 2
        ]
        """)
    #expect(
      ValueDump.render(Set([2, 1])) == """
        Set([
          1,
          2
        ])
        """)
    #expect(ValueDump.render(UUID(1)) == "00000000-0000-0000-0000-000000000001")
  }
}
