import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
#if canImport(MachO)
  import MachO
#endif

/// What kind of process this is: it picks the storage keys use and the values dependencies take.
package enum RunContext: Sendable, Equatable {
  /// An app or a tool: the real disk and preferences, live dependency values.
  case live
  /// A test runner: storage of each test's own, test dependency values.
  case test
  /// An Xcode preview: storage in memory, live (or preview) dependency values.
  case preview
}

/// Finds out, without linking Testing or XCTest, what kind of process this is and which test is
/// running, so every test gets storage of its own with nothing to set up.
///
/// The kind of process (``RunContext``) is decided once, from signals that exist on Linux and
/// Apple platforms alike (see ``runContext(environment:processName:librariesLoaded:)``). A process
/// with no signal is an app: it never looks anything up again, so its keys pay one load and one
/// comparison for the decision.
///
/// In a test process, Swift Testing's `Test.current` is a task-local read through its exported
/// getter, looked up with `dlsym` (so Testing is never loaded into an app). XCTest exports no
/// current test; `KeepsakeTesting` installs an observer for it through ``TestSupportHook``. Both
/// lookups may fail at first and succeed later: in a hosted test run (Xcode's default for an app
/// target) the host app starts, and makes keys, before the test bundle brings Testing and
/// `KeepsakeTesting` in. So a miss is retried (once the process has loaded code since the miss,
/// where the platform tells) and a find is kept. Work no test can be found for gets one shared
/// in-memory context: never the live one.
package final class TestDetector: Sendable {
  /// The detector of this process, from its environment and name; decided at its first use.
  package static let process = TestDetector(
    environment: ProcessInfo.processInfo.environment,
    processName: ProcessInfo.processInfo.processName,
    probes: .system)

  /// What kind of process this is.
  package static var runContext: RunContext { process.runContext }

  /// Whether the process runs tests (an Xcode preview does not: see ``RunContext``).
  static var isRunningTests: Bool { process.runContext == .test }

  /// Whether this process is an app (neither tests nor a preview), decided at first use.
  ///
  /// NB: a `Bool` of its own, so the check every key's creation makes in an app is one load and
  /// one comparison, with no reference to the detector to retain.
  static let isLiveProcess = process.runContext == .live

  private enum Mode: Sendable {
    case live
    /// `unattributed`: work under test that no test can be found for (a detached task, a plain
    /// thread, a host app's keys made before the test bundle loaded).
    case test(unattributed: StorageContext)
    /// The storage every key of a preview shares.
    case preview(StorageContext)
  }

  private let mode: Mode
  private let probes: Probes
  private let swiftTesting: RetryingLookup<SwiftTestingGetters>
  private let xcTestSupport: RetryingLookup<any XCTestStorageSupport.Type>
  /// Set once `KeepsakeTesting`'s XCTest support is installed; read without a lock.
  private let xcTestInstalled = Atomic<Bool>(false)
  private let xcTestInstall = Mutex(())
  private let contexts: TestContexts

  /// A detector for a process with this environment and name, looking code up through `probes`.
  init(environment: [String: String], processName: String, probes: Probes) {
    self.probes = probes
    let contexts = TestContexts()
    self.contexts = contexts
    let runContext = Self.runContext(
      environment: environment, processName: processName,
      librariesLoaded: { probes.symbol(Self.testCurrentSymbol) != nil || probes.xcTestLoaded() })
    switch runContext {
    case .live: mode = .live
    case .test:
      mode = .test(
        unattributed: .inMemory(
          name: "test process (no current test)", fileSystem: InMemoryFileSystem(),
          unattributedSince: { contexts.hasSeenATest }))
    case .preview: mode = .preview(.inMemory(name: "Xcode preview"))
    }
    swiftTesting = RetryingLookup(generation: probes.loadedCodeGeneration) {
      guard let test = probes.symbol(Self.testCurrentSymbol) else { return nil }
      return SwiftTestingGetters(test: test, testCase: probes.symbol(Self.testCaseCurrentSymbol))
    }
    xcTestSupport = RetryingLookup(
      generation: probes.loadedCodeGeneration, lookup: probes.xcTestStorageSupport)
  }

  /// What kind of process this is.
  var runContext: RunContext {
    switch mode {
    case .live: .live
    case .test: .test
    case .preview: .preview
    }
  }

  /// The storage keys use when no scope sets one: `live()` in an app, the running test's in a
  /// test process, the preview's in an Xcode preview.
  func context(live: () -> StorageContext) -> StorageContext {
    isolatedContext() ?? live()
  }

  /// The storage keys use when no scope sets one in a test process or a preview; `nil` in an app.
  func isolatedContext() -> StorageContext? {
    switch mode {
    case .live: nil
    case .test(let unattributed): currentTestContext(unattributed: unattributed)
    case .preview(let preview): preview
    }
  }

  // MARK: - Deciding

  /// The environment variables that mark a test run.
  static let testEnvironmentVariables = [
    "XCTestConfigurationFilePath", "XCTestBundlePath", "XCTestSessionIdentifier",
  ]

  /// Decides what kind of process this is; separate so every signal is testable.
  ///
  /// Any one signal suffices, and each exists on Linux and Apple platforms alike:
  /// - an Xcode preview (`XCODE_RUNNING_FOR_PREVIEWS=1`) is a ``RunContext/preview``;
  /// - the environment variables Xcode and `xcodebuild` give a test runner
  ///   (`XCTestConfigurationFilePath`, `XCTestBundlePath`, `XCTestSessionIdentifier`), which a
  ///   test bundle's host app also sees before any test library is loaded, make a
  ///   ``RunContext/test``; so do
  /// - the test runner's process name (`xctest`, a `.xctest` bundle, SwiftPM's testing helper),
  ///   and
  /// - Swift Testing or XCTest already loaded (`librariesLoaded`, asked last: it looks symbols up).
  ///
  /// Every test runner carries one of the first three from its start, so deciding once is safe.
  static func runContext(
    environment: [String: String], processName: String, librariesLoaded: () -> Bool
  ) -> RunContext {
    // NB: first: a preview that happens to have XCTest loaded must still get live dependencies.
    if environment["XCODE_RUNNING_FOR_PREVIEWS"] == "1" { return .preview }
    if testEnvironmentVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) {
      return .test
    }
    let name = processName.lowercased()
    if name == "xctest" || name.hasSuffix(".xctest") || name == "swiftpm-testing-helper" {
      return .test
    }
    return librariesLoaded() ? .test : .live
  }

  /// Whether a process with these signals gets isolated storage (a test or a preview).
  static func detect(
    environment: [String: String], processName: String, librariesLoaded: Bool
  ) -> Bool {
    runContext(
      environment: environment, processName: processName, librariesLoaded: { librariesLoaded })
      != .live
  }

  // MARK: - The running test

  /// Whether a Swift Testing test has been found running: before that, keys made where no test
  /// can be found are a hosted app's, made before its test bundle loaded, or XCTest's (which
  /// finds its cases by time, not by task).
  package var hasSeenATest: Bool { contexts.hasSeenATest }

  /// The context of the running test, made on first use.
  private func currentTestContext(unattributed: StorageContext) -> StorageContext {
    if let identity = currentSwiftTestingIdentity() {
      UnattributedKeys.reportPending()
      return contexts.table.withLock { contexts in
        if let context = contexts[identity] { return context }
        let context = StorageContext.inMemory(name: "test \(identity)")
        contexts[identity] = context
        return context
      }
    }
    installXCTestSupportIfAvailable()
    return probes.xcTestContext() ?? unattributed
  }

  /// The running Swift Testing test and test case, as a string, or `nil` outside one (or before
  /// Testing is loaded).
  func currentSwiftTestingIdentity() -> String? {
    guard let getters = swiftTesting.value,
      let testType = _typeByName("7Testing4TestV"),
      let test = Self.callOptionalGetter(getters.test, returning: testType)
    else { return nil }
    var identity = Self.describeIdentity(test)
    if let testCaseGetter = getters.testCase, let caseType = _typeByName("7Testing4TestV4CaseV"),
      let testCase = Self.callOptionalGetter(testCaseGetter, returning: caseType)
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

  /// Asks `KeepsakeTesting`, once it is loaded, to observe XCTest cases; once.
  private func installXCTestSupportIfAvailable() {
    guard !xcTestInstalled.load(ordering: .acquiring), let support = xcTestSupport.value else {
      return
    }
    // NB: under a lock, so a second thread waits until the observer is in place rather than
    // reading no context meanwhile.
    xcTestInstall.withLock { _ in
      guard !xcTestInstalled.load(ordering: .acquiring) else { return }
      support.install(inProgress: true)
      xcTestInstalled.store(true, ordering: .releasing)
    }
  }

  private static func describeIdentity(_ value: Any) -> String {
    if let identifiable = value as? any Identifiable {
      return String(describing: identifiable.id)
    }
    return String(describing: value)
  }

  /// Calls a static getter `() -> T?` whose `T` is only known at run time.
  private static func callOptionalGetter(
    _ getter: SymbolAddress, returning type: Any.Type
  ) -> Any? {
    func call<T>(_: T.Type) -> Any? {
      typealias Getter = @convention(thin) () -> T?
      let function = unsafeBitCast(getter.pointer, to: Getter.self)
      return function()
    }
    return _openExistential(type, do: call)
  }

  // MARK: - Probes

  /// Swift Testing's `Test.current` getter.
  static let testCurrentSymbol = "$s7Testing4TestV7currentACSgvgZ"
  /// Swift Testing's `Test.Case.current` getter.
  static let testCaseCurrentSymbol = "$s7Testing4TestV4CaseV7currentAESgvgZ"

  private struct SwiftTestingGetters: Sendable {
    let test: SymbolAddress
    let testCase: SymbolAddress?
  }

  /// The address of an exported function in loaded code.
  struct SymbolAddress: @unchecked Sendable {
    // NB: unchecked: the address of code, only ever called, never written through; images with
    // Swift code are never unloaded.
    let pointer: UnsafeMutableRawPointer

    init(_ pointer: UnsafeMutableRawPointer) {
      self.pointer = pointer
    }
  }

  /// How the detector looks at the process: the system's in a real process, stand-ins in tests
  /// of hosted-style startup.
  package struct Probes: Sendable {
    /// Looks up an exported symbol in the loaded code.
    var symbol: @Sendable (String) -> SymbolAddress?
    /// Whether XCTest is loaded.
    var xcTestLoaded: @Sendable () -> Bool
    /// `KeepsakeTesting`'s XCTest support, when it is loaded.
    var xcTestStorageSupport: @Sendable () -> (any XCTestStorageSupport.Type)?
    /// The context of the running XCTest case, from the installed support.
    var xcTestContext: @Sendable () -> StorageContext?
    /// A number that changes when the process loads code; `nil` where the platform does not
    /// tell, which retries a failed lookup every time.
    package var loadedCodeGeneration: @Sendable () -> UInt64?

    init(
      symbol: @escaping @Sendable (String) -> SymbolAddress?,
      xcTestLoaded: @escaping @Sendable () -> Bool,
      xcTestStorageSupport: @escaping @Sendable () -> (any XCTestStorageSupport.Type)?,
      xcTestContext: @escaping @Sendable () -> StorageContext?,
      loadedCodeGeneration: @escaping @Sendable () -> UInt64?
    ) {
      self.symbol = symbol
      self.xcTestLoaded = xcTestLoaded
      self.xcTestStorageSupport = xcTestStorageSupport
      self.xcTestContext = xcTestContext
      self.loadedCodeGeneration = loadedCodeGeneration
    }

    /// The real process: `dlsym`, the XCTest class, `KeepsakeTesting`'s hook.
    package static let system = Probes(
      symbol: { name in
        guard let programHandle = SystemProbes.programHandle?.pointer,
          let address = dlsym(programHandle, name)
        else { return nil }
        return SymbolAddress(address)
      },
      xcTestLoaded: SystemProbes.xcTestLoaded,
      xcTestStorageSupport: { TestSupportHook.xcTestStorageSupport },
      xcTestContext: { StorageContext.xcTestContextProvider.withLock { $0 }?() },
      loadedCodeGeneration: SystemProbes.loadedCodeGeneration)
  }
}

/// The calls behind ``TestDetector/Probes/system``.
private enum SystemProbes {
  /// Searches every image loaded without `RTLD_LOCAL`, including those loaded later.
  static let programHandle = dlopen(nil, RTLD_NOW).map(TestDetector.SymbolAddress.init)

  /// Whether XCTest is loaded: its Swift symbol on Linux, its Objective-C class on Apple
  /// platforms (where XCTest is an Objective-C framework and the Swift symbol does not exist).
  @Sendable static func xcTestLoaded() -> Bool {
    if let programHandle = programHandle?.pointer,
      dlsym(programHandle, "$s6XCTest0A17ObservationCenterC6sharedACvgZ") != nil
    {
      return true
    }
    #if canImport(ObjectiveC)
      if NSClassFromString("XCTestCase") != nil { return true }
    #endif
    return false
  }

  @Sendable static func loadedCodeGeneration() -> UInt64? {
    #if canImport(MachO)
      // NB: `dlsym` over every loaded image is costly on Apple platforms (hundreds of images);
      // dyld's count of images grows when a test bundle loads, the only time a failed lookup
      // can start to succeed, so a miss is retried only then.
      return UInt64(_dyld_image_count())
    #else
      // NB: glibc exposes no count of loaded objects to Swift, and its `dlsym` checks each
      // object's hash table in a fraction of a microsecond: a miss is retried at every lookup,
      // which happens only in a test process before the test library is found.
      return nil
    #endif
  }
}

extension StorageContext {
  /// Supplies the context of the running XCTest case; set by `KeepsakeTesting`.
  ///
  /// XCTest runs one test case at a time in a process on Linux, so one provider suffices.
  @_spi(Testing) public static let xcTestContextProvider =
    Mutex<(@Sendable () -> StorageContext?)?>(nil)
}

/// The contexts of the Swift Testing tests found so far, by identity.
private final class TestContexts: Sendable {
  let table = Mutex<[String: StorageContext]>([:])

  /// Whether a test has been found running.
  var hasSeenATest: Bool { !table.withLock { $0.isEmpty } }
}
