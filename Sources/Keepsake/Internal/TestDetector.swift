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
/// exports no current test; `KeepsakeTesting` installs an observer for it (see
/// ``StorageContext/xcTestContextProvider``). Any lookup that finds nothing falls back to a
/// shared ephemeral context: never the live one.
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
  private static let xcTestLoaded =
    symbol("$s6XCTest0A17ObservationCenterC6sharedACvgZ") != nil

  /// Whether Swift Testing or XCTest is part of this process.
  package static let isRunningTests: Bool = testCurrentGetter != nil || xcTestLoaded

  private static let contexts = Mutex<[String: StorageContext]>([:])

  /// Work under test that no test can be found for (a detached task, a plain thread).
  static let unattributed = StorageContext.ephemeral(name: "test process (no current test)")

  /// The context of the running test, made on first use.
  static func currentTestContext() -> StorageContext {
    if let identity = currentSwiftTestingIdentity() {
      return contexts.withLock { contexts in
        if let context = contexts[identity] { return context }
        let context = StorageContext.ephemeral(name: "test \(identity)")
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
    guard xcTestLoaded else { return }
    let shouldInstall = xcTestInstall.withLock { installed in
      defer { installed = true }
      return !installed
    }
    // NB: found by its mangled type name, which the Swift runtime resolves in every loaded
    // image (a test binary exports no C symbols to look up with dlsym).
    guard shouldInstall,
      let support = _typeByName("15KeepsakeTesting21XCTestStorageObserverC")
        as? any _XCTestStorageSupport.Type
    else { return }
    support.install(inProgress: true)
  }
}

extension StorageContext {
  /// Supplies the context of the running XCTest case; set by `KeepsakeTesting`.
  ///
  /// XCTest runs one test case at a time in a process on Linux, so one provider suffices.
  public static let xcTestContextProvider = Mutex<(@Sendable () -> StorageContext?)?>(nil)
}

/// Implemented by `KeepsakeTesting` to give each XCTest case storage of its own; not for apps.
public protocol _XCTestStorageSupport {
  /// Starts giving XCTest cases their own storage; `inProgress` means a case is running now.
  static func install(inProgress: Bool)
}
