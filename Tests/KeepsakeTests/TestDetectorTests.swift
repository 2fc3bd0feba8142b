import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

/// How the kind of process is decided, and how a test process finds its test support even when
/// it arrives after the first keys (a hosted test run: the host app starts before the test bundle
/// loads).
@Suite("Test detection")
struct TestDetectorTests {
  /// A stand-in process: whether its test libraries are loaded yet, its count of loaded code, and
  /// how often each probe was asked.
  final class FakeProcess: Sendable {
    let testingLoaded = Mutex(false)
    let xcTestSupport = Mutex<(any XCTestStorageSupport.Type)?>(nil)
    let xcTestContext = Mutex<StorageContext?>(nil)
    let generation = Mutex<UInt64>(1)
    let calls = Mutex<[String: Int]>([:])

    /// Probes over this process; symbols, once "loaded", are the real ones of this test binary.
    var probes: TestDetector.Probes {
      TestDetector.Probes(
        symbol: { name in
          self.count(name)
          guard self.testingLoaded.withLock({ $0 }) else { return nil }
          return TestDetector.Probes.system.symbol(name)
        },
        xcTestLoaded: {
          self.count("xcTestLoaded")
          return false
        },
        xcTestStorageSupport: {
          self.count("xcTestStorageSupport")
          return self.xcTestSupport.withLock { $0 }
        },
        xcTestContext: {
          self.count("xcTestContext")
          return self.xcTestContext.withLock { $0 }
        },
        loadedCodeGeneration: { self.generation.withLock { $0 } })
    }

    func count(_ name: String) {
      calls.withLock { $0[name, default: 0] += 1 }
    }

    func calls(_ name: String) -> Int {
      calls.withLock { $0[name, default: 0] }
    }

    var totalCalls: Int { calls.withLock { $0.values.reduce(0, +) } }

    /// The test bundle loads: Swift Testing arrives with it.
    func loadTestBundle() {
      testingLoaded.withLock { $0 = true }
      generation.withLock { $0 += 1 }
    }
  }

  static let hostedEnvironment = ["XCTestConfigurationFilePath": "/tmp/App.xctestconfiguration"]

  @Test(
    "Hosted run: keys made before the test library loads share one context, keys after get the test's own"
  )
  func hostedStartup() async throws {
    let process = FakeProcess()
    let detector = TestDetector(
      environment: Self.hostedEnvironment, processName: "MyApp", probes: process.probes)
    #expect(detector.runContext == .test)

    // The host app launches and makes a key before the test bundle is loaded.
    let atLaunch = detector.context { .live }
    #expect(atLaunch.isIsolated)
    #expect(atLaunch !== StorageContext.live)
    let launched = StorageContext.withValue(atLaunch) { Shared(.inMemory("hosted"), default: 0) }
    launched.withLock { $0 = 1 }

    process.loadTestBundle()
    let inTest = detector.context { .live }
    let id = String(describing: try #require(Test.current).id)
    #expect(inTest !== atLaunch)
    #expect(inTest.name.hasPrefix("test \(id)"))
    #expect(detector.context { .live } === inTest, "one context for the test")
    let mine = StorageContext.withValue(inTest) { Shared(.inMemory("hosted"), default: 0) }
    #expect(mine.wrappedValue == 0, "the test starts fresh, not with the host app's value")
    #expect(launched.wrappedValue == 1)

    // Work that leaves the test (a detached task) still shares the launch context.
    let detached = await Task.detached { detector.context { .live } }.value
    #expect(detached === atLaunch)
  }

  @Test("Hosted run: a failed lookup is retried only after code was loaded, and kept once found")
  func hostedLookupCost() {
    let process = FakeProcess()
    let detector = TestDetector(
      environment: Self.hostedEnvironment, processName: "MyApp", probes: process.probes)
    for _ in 0..<50 { _ = detector.context { .live } }
    #expect(process.calls(TestDetector.testCurrentSymbol) == 1)
    #expect(process.calls("xcTestStorageSupport") == 1)

    // Some unrelated library loads: one more look, still nothing.
    process.generation.withLock { $0 += 1 }
    for _ in 0..<50 { _ = detector.context { .live } }
    #expect(process.calls(TestDetector.testCurrentSymbol) == 2)

    process.loadTestBundle()
    for _ in 0..<50 { _ = detector.context { .live } }
    #expect(process.calls(TestDetector.testCurrentSymbol) == 3, "found, then kept")
  }

  /// KeepsakeTesting's XCTest support, as a stand-in that counts its installations.
  enum FakeXCTestSupport: XCTestStorageSupport {
    static let installations = Mutex<[Bool]>([])

    static func install(inProgress: Bool) {
      installations.withLock { $0.append(inProgress) }
    }
  }

  @Test("Hosted XCTest run: the XCTest support that loads later is installed once, and used")
  func xcTestSupportLoadedLater() {
    let process = FakeProcess()
    let detector = TestDetector(
      environment: Self.hostedEnvironment, processName: "MyApp", probes: process.probes)
    let atLaunch = detector.context { .live }

    let caseContext = StorageContext.inMemory(name: "XCTest case")
    process.xcTestSupport.withLock { $0 = FakeXCTestSupport.self }
    process.xcTestContext.withLock { $0 = caseContext }
    process.generation.withLock { $0 += 1 }
    #expect((0..<10).allSatisfy { _ in detector.context { .live } === caseContext })
    #expect(FakeXCTestSupport.installations.withLock { $0 } == [true])
    #expect(atLaunch !== caseContext)
  }

  @Test("A process with no test signal is decided once as an app and never looks anything up")
  func appNeverLooksAgain() {
    let process = FakeProcess()
    let detector = TestDetector(environment: [:], processName: "MyApp", probes: process.probes)
    #expect(detector.runContext == .live)
    let atDecision = process.totalCalls
    #expect(atDecision == 2, "the decision looks for Swift Testing and XCTest once")

    process.loadTestBundle()
    #expect((0..<1_000).allSatisfy { _ in detector.context { .live } === StorageContext.live })
    #expect(process.totalCalls == atDecision)
  }

  @Test("An Xcode preview has one in-memory context of its own and looks nothing up")
  func previewContext() {
    let process = FakeProcess()
    let detector = TestDetector(
      environment: ["XCODE_RUNNING_FOR_PREVIEWS": "1"], processName: "MyApp",
      probes: process.probes)
    #expect(detector.runContext == .preview)
    let preview = detector.context { .live }
    #expect(preview.isIsolated)
    #expect(preview.fileSystem is InMemoryFileSystem)
    #expect(preview.name == "Xcode preview")
    process.loadTestBundle()
    #expect((0..<100).allSatisfy { _ in detector.context { .live } === preview })
    #expect(process.totalCalls == 0)
  }

  @Test(
    "Each signal decides the kind of process",
    arguments: [
      ([:], "MyApp", false, RunContext.live),
      ([:], "MyApp", true, .test),
      (["XCTestSessionIdentifier": "7A1C"], "MyApp", false, .test),
      (["XCTestConfigurationFilePath": ""], "MyApp", false, .live),
      ([:], "xctest", false, .test),
      ([:], "swiftpm-testing-helper", false, .test),
      (["XCODE_RUNNING_FOR_PREVIEWS": "1"], "MyApp", false, .preview),
      (["XCODE_RUNNING_FOR_PREVIEWS": "1"], "MyApp", true, .preview),
      (["XCODE_RUNNING_FOR_PREVIEWS": "0"], "MyApp", false, .live),
    ] as [([String: String], String, Bool, RunContext)])
  func signals(
    environment: [String: String], name: String, loaded: Bool, expected: RunContext
  ) {
    let decided = TestDetector.runContext(
      environment: environment, processName: name, librariesLoaded: { loaded })
    #expect(decided == expected)
  }

  @Test("This test process is decided as a test process")
  func thisProcess() {
    #expect(TestDetector.runContext == .test)
    #expect(TestDetector.isRunningTests)
  }
}
