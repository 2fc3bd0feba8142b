import Foundation

/// Where a ``Dependency`` was declared: the line a failure points to.
struct DependencySite: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// The declaration being read right now, set by ``Dependency`` around its read.
  @TaskLocal static var current: DependencySite?
}

/// The default being made right now: what a missing test value's failure says and where it goes.
struct Resolution: Sendable {
  /// The property that read the dependency (`#function` of its getter).
  let name: String
  let issues: DependencyIssueLog?
  let site: DependencySite?

  @TaskLocal static var current: Resolution?
}

/// Reports a dependency read under test that has no value there.
enum Unimplemented {
  /// Reports that `key` was read under test with no value set and no test value.
  ///
  /// - Parameter reason: Why there is no test value, when it is not the usual one.
  static func report<Key: DependencyKey>(
    key: Key.Type, valueType: Any.Type, reason: String? = nil
  ) {
    let resolution = Resolution.current
    let message = message(
      key: key, valueType: valueType, name: resolution?.name, site: resolution?.site,
      reason: reason)
    if let issues = resolution?.issues {
      issues.record(message)
    } else if let support = TestSupport.installed {
      let site = resolution?.site
      support.reportIssue(
        message, fileID: site?.fileID, filePath: site?.filePath, line: site?.line ?? 0,
        column: site?.column ?? 0)
    } else {
      // NB: the test target does not link KeepsakeTesting, so nothing can record an issue.
      FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }
  }

  static func message<Key: DependencyKey>(
    key: Key.Type, valueType: Any.Type, name: String?, site: DependencySite?, reason: String?
  ) -> String {
    let keyName = String(describing: key)
    // A property's getter reads it under its own name; any other caller names a function.
    let property = name.flatMap { $0.contains("(") || $0.isEmpty ? nil : $0 }
    let dependency = property.map { "@Dependency(\\.\($0))" } ?? "The dependency \(keyName)"
    let assignment = "$0.\(property ?? "<property>") = ..."
    var text =
      "\(dependency) (\(keyName), \(String(describing: valueType))) was read under test, but "
      + (reason ?? "the test did not set it and \(keyName) has no `testValue`.")
      + " Set it for the test (`withDependencies { \(assignment) }`, or "
      + "`TestStore(initialState:reducer:withDependencies:)`), or give \(keyName) a "
      + "`testValue`. The live value is used meanwhile."
    if let site {
      text += "\n\nRead through the @Dependency declared at \(site.fileID):\(site.line)."
    }
    return text
  }
}
