import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Finds out, without linking Testing or XCTest, whether the process runs tests and which test
/// is running, so every test gets storage of its own with nothing to set up.
///
/// Swift Testing's `Test.current` is a task-local read through its exported getter, looked up
/// with `dlsym` only when Testing is already loaded (so it is never loaded into an app). XCTest
/// exports no current test; `KeepsakeTesting` installs an observer for it through
/// ``TestSupportHook``. Any lookup that finds nothing falls back to a
/// shared in-memory context: never the live one.
package enum TestDetector {
  // NB: the handle and the symbols below are written once, when first read, and never change;
  // the pointers they hold are only called, never written through.
  private nonisolated(unsafe) static let programHandle = dlopen(nil, RTLD_NOW)

  private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
    guard let programHandle else { return nil }
    return dlsym(programHandle, name)
  }

  private nonisolated(unsafe) static let testCurrentGetter = symbol(
    "$s7Testing4TestV7currentACSgvgZ")
  private nonisolated(unsafe) static let testCaseCurrentGetter = symbol(
    "$s7Testing4TestV4CaseV7currentAESgvgZ")
  /// Whether XCTest is loaded: its Swift symbol on Linux, its Objective-C class on Apple
  /// platforms (where XCTest is an Objective-C framework and the Swift symbol does not exist).
  private static let xcTestLoaded: Bool = {
    if symbol("$s6XCTest0A17ObservationCenterC6sharedACvgZ") != nil { return true }
    #if canImport(ObjectiveC)
      if NSClassFromString("XCTestCase") != nil { return true }
    #endif
    return false
  }()

  /// Whether the process runs tests, or anything else that must never touch the real disk.
  ///
  /// Any one signal suffices, and each exists on Linux and Apple platforms alike:
  /// - Swift Testing is loaded (its `Test.current` getter);
  /// - XCTest is loaded (its Swift symbol, or the `XCTestCase` Objective-C class);
  /// - the environment variables Xcode and `xcodebuild` give a test runner
  ///   (`XCTestConfigurationFilePath`, `XCTestBundlePath`, `XCTestSessionIdentifier`), which a
  ///   test bundle's host app also sees before any test library is loaded;
  /// - the test runner's process name (`xctest`, a `.xctest` bundle, SwiftPM's testing helper);
  /// - an Xcode preview (`XCODE_RUNNING_FOR_PREVIEWS=1`), which gets in-memory storage too.
  package static let isRunningTests: Bool = detect(
    environment: ProcessInfo.processInfo.environment,
    processName: ProcessInfo.processInfo.processName,
    librariesLoaded: testCurrentGetter != nil || xcTestLoaded)

  /// The environment variables that mark a test run.
  static let testEnvironmentVariables = [
    "XCTestConfigurationFilePath", "XCTestBundlePath", "XCTestSessionIdentifier",
  ]

  /// Decides from the signals of ``isRunningTests``; separate so every signal is testable.
  package static func detect(
    environment: [String: String], processName: String, librariesLoaded: Bool
  ) -> Bool {
    if librariesLoaded { return true }
    if testEnvironmentVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) {
      return true
    }
    if environment["XCODE_RUNNING_FOR_PREVIEWS"] == "1" { return true }
    let name = processName.lowercased()
    return name == "xctest" || name.hasSuffix(".xctest") || name == "swiftpm-testing-helper"
  }

  private static let contexts = Mutex<[String: StorageContext]>([:])

  /// Work under test that no test can be found for (a detached task, a plain thread).
  static let unattributed = StorageContext.inMemory(name: "test process (no current test)")

  /// The context of the running test, made on first use.
  static func currentTestContext() -> StorageContext {
    if let identity = currentSwiftTestingIdentity() {
      return contexts.withLock { contexts in
        if let context = contexts[identity] { return context }
        let context = StorageContext.inMemory(name: "test \(identity)")
        contexts[identity] = context
        return context
      }
    }
    installXCTestSupportIfAvailable()
    if let context = StorageContext.xcTestContextProvider.withLock({ $0 })?() {
      return context
    }
    return unattributed
  }

  // MARK: - Swift Testing

  /// The running Swift Testing test and test case, as a string, or `nil` outside one.
  static func currentSwiftTestingIdentity() -> String? {
    guard let testCurrentGetter,
      let testType = _typeByName("7Testing4TestV"),
      let test = callOptionalGetter(testCurrentGetter, returning: testType)
    else { return nil }
    var identity = describeIdentity(test)
    if let testCaseCurrentGetter, let caseType = _typeByName("7Testing4TestV4CaseV"),
      let testCase = callOptionalGetter(testCaseCurrentGetter, returning: caseType)
    {
      // NB: the arguments of a parameterized case are only reachable through reflection; a
      // failure here merges the cases of one test, it never crashes.
      let mirror = Mirror(reflecting: testCase)
      if let kind = mirror.descendant("_kind") ?? mirror.descendant("arguments") {
        identity += " case \(String(describing: kind))"
      }
    }
    return identity
  }

  private static func describeIdentity(_ value: Any) -> String {
    if let identifiable = value as? any Identifiable {
      return String(describing: identifiable.id)
    }
    return String(describing: value)
  }

  /// Calls a static getter `() -> T?` whose `T` is only known at run time.
  private static func callOptionalGetter(
    _ getter: UnsafeMutableRawPointer, returning type: Any.Type
  ) -> Any? {
    func call<T>(_: T.Type) -> Any? {
      typealias Getter = @convention(thin) () -> T?
      let function = unsafeBitCast(getter, to: Getter.self)
      return function()
    }
    return _openExistential(type, do: call)
  }

  // MARK: - XCTest

  private static let xcTestInstall = Mutex(false)

  /// Asks `KeepsakeTesting`, when it is linked, to observe XCTest cases.
  private static func installXCTestSupportIfAvailable() {
    let shouldInstall = xcTestInstall.withLock { installed in
      defer { installed = true }
      return !installed
    }
    guard shouldInstall, let support = TestSupportHook.xcTestStorageSupport else { return }
    support.install(inProgress: true)
  }
}

extension StorageContext {
  /// Supplies the context of the running XCTest case; set by `KeepsakeTesting`.
  ///
  /// XCTest runs one test case at a time in a process on Linux, so one provider suffices.
  @_spi(Testing) public static let xcTestContextProvider =
    Mutex<(@Sendable () -> StorageContext?)?>(nil)
}
