/// Where `KeepsakeTesting` plugs into the library, found at run time without a name.
///
/// Keepsake may not link XCTest or Testing, yet XCTest cases need storage of their own and
/// `KeepsakeStore` needs the test's issues and a manual clock. So `KeepsakeTesting` conforms this
/// type to the support protocols (``XCTestStorageSupport`` here, `KeepsakeStoreTestSupport` in
/// `KeepsakeStore`), and the library finds a conformance with a cast, which the Swift runtime
/// answers from the conformance records of every loaded image: present when `KeepsakeTesting` is
/// linked, absent in an app.
///
/// NB: not `_typeByName` of a mangled name, as before: renaming a type on either side now fails
/// to compile, where it used to switch XCTest isolation off in silence. `KeepsakeTestingTests`
/// checks that the conformances are found.
@_spi(Testing) public enum TestSupportHook {
  /// `KeepsakeTesting`'s XCTest support, when it is part of the process.
  static var xcTestStorageSupport: (any XCTestStorageSupport.Type)? {
    (TestSupportHook.self as Any.Type) as? any XCTestStorageSupport.Type
  }

  /// `KeepsakeTesting`'s way of failing the running test, when it is part of the process.
  static var issueReporting: (any TestIssueReporting.Type)? {
    (TestSupportHook.self as Any.Type) as? any TestIssueReporting.Type
  }
}

/// Implemented by `KeepsakeTesting` (on ``TestSupportHook``) to record an issue in the running
/// test (Swift Testing or XCTest); not for apps.
@_spi(Testing) public protocol TestIssueReporting: SendableMetatype {
  /// Records `message` as a failure of the running test, at the given place when there is one.
  static func reportIssue(
    _ message: String, fileID: StaticString?, filePath: StaticString?, line: UInt, column: UInt)
}

/// Implemented by `KeepsakeTesting` (on ``TestSupportHook``) to give each XCTest case storage of
/// its own; not for apps.
///
/// A `SendableMetatype`, so the library can keep the conformance it found and use it from any
/// thread.
@_spi(Testing) public protocol XCTestStorageSupport: SendableMetatype {
  /// Starts giving XCTest cases their own storage; `inProgress` means a case is running now.
  static func install(inProgress: Bool)
}
