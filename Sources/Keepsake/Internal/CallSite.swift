/// Where in the app's code something was made: for messages that point at the line to change.
@usableFromInline
struct CallSite: Sendable, Hashable, CustomStringConvertible {
  /// The file, as `#fileID` gives it (`MyApp/Settings.swift`).
  let fileID: StaticString
  /// The file's path, as `#filePath` gives it.
  let filePath: StaticString
  /// The line.
  let line: UInt
  /// The column.
  let column: UInt

  /// The place given.
  @usableFromInline
  init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// `MyApp/Settings.swift:12`.
  @usableFromInline var description: String { "\(fileID):\(line)" }

  @usableFromInline static func == (lhs: CallSite, rhs: CallSite) -> Bool {
    lhs.description == rhs.description && lhs.column == rhs.column
  }

  @usableFromInline func hash(into hasher: inout Hasher) {
    hasher.combine(description)
    hasher.combine(column)
  }
}
