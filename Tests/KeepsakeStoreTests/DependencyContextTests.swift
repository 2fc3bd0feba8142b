import Foundation
import Testing

@testable import Keepsake
@testable import KeepsakeStore

/// Which value a dependency nobody set takes: the test value under test, the live one (or the
/// key's preview value) in an Xcode preview, whose storage is still in memory.
@Suite("Dependency defaults per kind of process")
struct DependencyContextTests {
  enum PreviewedKey: DependencyKey {
    static let liveValue = "live"
    static let previewValue = "preview"
    static let testValue = "test"
  }

  enum LiveOnlyKey: DependencyKey {
    static let liveValue = "live"
  }

  /// A process that has loaded no test library.
  static let nothingLoaded = TestDetector.Probes(
    symbol: { _ in nil }, xcTestLoaded: { false }, xcTestStorageSupport: { nil },
    xcTestContext: { nil }, loadedCodeGeneration: { 0 })

  /// The dependencies of an app process whose environment is `environment`.
  func values(environment: [String: String]) -> DependencyValues {
    let detector = TestDetector(
      environment: environment, processName: "MyApp", probes: Self.nothingLoaded)
    return DependencyValues(context: DependencyContext(runContext: detector.runContext))
  }

  static let preview = ["XCODE_RUNNING_FOR_PREVIEWS": "1"]

  @Test("A preview takes live dates, UUIDs and clocks, not the test values")
  func previewTakesLiveValues() {
    let values = values(environment: Self.preview)
    #expect(values.date.now.timeIntervalSince1970 > 0, "not the test's 1970")
    #expect(values.uuid() != UUID(0), "not the test's counting UUIDs")
    #expect(values.continuousClock is ContinuousClock)
    #expect(values.suspendingClock is SuspendingClock)
  }

  @Test("A key's own preview value wins in a preview")
  func previewValue() {
    #expect(values(environment: Self.preview)[PreviewedKey.self] == "preview")
    #expect(values(environment: [:])[PreviewedKey.self] == "live")
    #expect(values(environment: ["XCTestSessionIdentifier": "7A1C"])[PreviewedKey.self] == "test")
  }

  @Test("A key without a test value reports nothing in a preview, and does under test")
  func noUnimplementedFailureInPreview() {
    let issues = DependencyIssueLog()
    let preview = DependencyValues(context: DependencyContext(issues: issues, runContext: .preview))
    #expect(preview[LiveOnlyKey.self] == "live")
    #expect(issues.drain().isEmpty)

    let test = DependencyValues(context: DependencyContext(issues: issues, runContext: .test))
    #expect(test[LiveOnlyKey.self] == "live")
    #expect(issues.drain().count == 1)
  }
}
