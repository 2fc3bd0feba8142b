import Foundation
import Testing

@testable import Keepsake

/// How a plain program (no test library loaded) decides where its storage is, checked with the
/// real `drafts` program in a child process with a temporary home.
@Suite("Storage detection in a child process")
struct StorageDetectionTests {
  struct Setting: CustomTestStringConvertible, Sendable {
    var name: String
    var arguments: [String]
    var environment: [String: String]
    var writesTheStore: Bool
    var testDescription: String { name }
  }

  static let settings: [Setting] = [
    Setting(name: "a plain run", arguments: [], environment: [:], writesTheStore: true),
    Setting(
      name: "XCTestConfigurationFilePath set", arguments: [],
      environment: ["XCTestConfigurationFilePath": "/tmp/x.xctestconfiguration"],
      writesTheStore: false),
    Setting(
      name: "XCTestBundlePath set", arguments: [],
      environment: ["XCTestBundlePath": "/tmp/App.xctest"], writesTheStore: false),
    Setting(
      name: "XCTestSessionIdentifier set", arguments: [],
      environment: ["XCTestSessionIdentifier": "7A1C"], writesTheStore: false),
    Setting(
      name: "an Xcode preview", arguments: [], environment: ["XCODE_RUNNING_FOR_PREVIEWS": "1"],
      writesTheStore: false),
    Setting(
      name: "the app-wide in-memory override", arguments: ["--in-memory-storage"],
      environment: [:], writesTheStore: false),
  ]

  @Test(
    "Test runners, previews and the app-wide override never write the real store",
    arguments: settings)
  func detection(_ setting: Setting) throws {
    let temporary = try DraftsProcess.home()
    let home = temporary.url

    // No --store: the program uses its usual place under the (temporary) home.
    let run = try DraftsProcess.run(
      setting.arguments + ["add", "hello"], home: home, environment: setting.environment)
    #expect(run.exitCode == 0, "\(run.standardError)")
    let written = FileManager.default.subpaths(atPath: home.path) ?? []
    if setting.writesTheStore {
      #expect(written.contains { $0.hasSuffix("drafts.json") })
    } else {
      #expect(written.isEmpty, "wrote \(written) under the home")
    }
  }

  @Test(
    "Each signal is enough on its own",
    arguments: [
      (["XCTestBundlePath": "/b"], "app", false, true),
      (["XCODE_RUNNING_FOR_PREVIEWS": "1"], "app", false, true),
      (["XCODE_RUNNING_FOR_PREVIEWS": "0"], "app", false, false),
      ([:], "xctest", false, true),
      ([:], "MyAppPackageTests.xctest", false, true),
      ([:], "swiftpm-testing-helper", false, true),
      ([:], "app", true, true),
      ([:], "app", false, false),
      (["XCTestConfigurationFilePath": ""], "app", false, false),
    ])
  func signals(_ environment: [String: String], _ name: String, _ loaded: Bool, _ expected: Bool) {
    #expect(
      TestDetector.detect(environment: environment, processName: name, librariesLoaded: loaded)
        == expected)
  }
}
