/// A line-by-line diff of two values' renderings, for test failures.
///
/// Lines only in the expected value start with `−`, lines only in the actual value with `+`;
/// runs of unchanged lines far from a change are collapsed into `… (N unchanged)`.
///
/// ```swift
/// ValueDiff.diff(expected, actual)
/// //   Draft(
/// //     id: 00000000-0000-0000-0000-000000000000,
/// // −   text: "Hi",
/// // +   text: "Hello",
/// //     pinned: false
/// //   )
/// ```
///
/// Nonisolated; values are rendered with ``ValueDump``.
public enum ValueDiff {
  /// How many unchanged lines are kept on each side of a change.
  static let context = 2

  /// The diff of two values, or `nil` when they render the same.
  public static func diff(_ expected: Any, _ actual: Any) -> String? {
    lines(expected: ValueDump.render(expected), actual: ValueDump.render(actual))
  }

  /// The diff of two renderings, or `nil` when they are equal.
  public static func lines(expected: String, actual: String) -> String? {
    guard expected != actual else { return nil }
    let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let edits = edits(old, new)
    var output: [String] = []
    var index = 0
    while index < edits.count {
      guard case .same = edits[index].kind else {
        output.append(edits[index].rendered)
        index += 1
        continue
      }
      var end = index
      while end < edits.count, case .same = edits[end].kind { end += 1 }
      let keepHead = index == 0 ? 0 : context
      let keepTail = end == edits.count ? 0 : context
      let run = end - index
      if run > keepHead + keepTail + 1 {
        output += edits[index..<index + keepHead].map(\.rendered)
        output.append("  … (\(run - keepHead - keepTail) unchanged)")
        output += edits[end - keepTail..<end].map(\.rendered)
      } else {
        output += edits[index..<end].map(\.rendered)
      }
      index = end
    }
    return output.joined(separator: "\n")
  }

  private struct Edit {
    enum Kind { case same, removed, added }
    let kind: Kind
    let line: String

    var rendered: String {
      switch kind {
      case .same: "  " + line
      case .removed: "\u{2212} " + line
      case .added: "+ " + line
      }
    }
  }

  /// The shortest edit script from `old` to `new` (longest common subsequence of lines).
  private static func edits(_ old: [String], _ new: [String]) -> [Edit] {
    let rows = old.count
    let columns = new.count
    // lengths[i][j]: the longest common subsequence of old[i...] and new[j...].
    var lengths = Array(repeating: Array(repeating: 0, count: columns + 1), count: rows + 1)
    for row in stride(from: rows - 1, through: 0, by: -1) {
      for column in stride(from: columns - 1, through: 0, by: -1) {
        lengths[row][column] =
          old[row] == new[column]
          ? lengths[row + 1][column + 1] + 1
          : max(lengths[row + 1][column], lengths[row][column + 1])
      }
    }
    var result: [Edit] = []
    var row = 0
    var column = 0
    while row < rows || column < columns {
      if row < rows, column < columns, old[row] == new[column] {
        result.append(Edit(kind: .same, line: old[row]))
        row += 1
        column += 1
      } else if row < rows,
        column == columns || lengths[row + 1][column] >= lengths[row][column + 1]
      {
        // Removals first, so an expected line reads just above the actual line replacing it.
        result.append(Edit(kind: .removed, line: old[row]))
        row += 1
      } else {
        result.append(Edit(kind: .added, line: new[column]))
        column += 1
      }
    }
    return result
  }
}
