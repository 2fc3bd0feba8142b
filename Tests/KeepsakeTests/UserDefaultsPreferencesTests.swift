import Foundation
import Keepsake
import KeepsakeTesting
import Testing

/// `UserDefaultsPreferences` on Linux, through swift-corelibs `UserDefaults`, in a child process
/// whose `HOME` and `XDG_CONFIG_HOME` are temporary folders, so the developer's defaults are
/// never touched.
@Suite("UserDefaults preferences, in a child process")
struct UserDefaultsPreferencesTests {
  /// Runs `keepsake-stress user-defaults SUITE ...` with `home` as its home and configuration.
  func child(_ command: [String], home: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: stressExecutable)
    process.arguments = ["user-defaults", "keepsake.tests"] + command
    process.environment = [
      "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
      "PATH": "/usr/bin:/bin",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("Values written by one process are read by the next, under the temporary home only")
  func roundTrip() throws {
    let folder = try TemporaryFolder()
    let home = folder.url

    #expect(try child(["get", "count"], home: home) == "missing")
    #expect(try child(["set", "count", "int", "42"], home: home) == "ok")
    #expect(try child(["set", "flag", "bool", "true"], home: home) == "ok")
    #expect(try child(["set", "name", "string", "Ada"], home: home) == "ok")
    #expect(try child(["get", "count"], home: home) == "value \(PreferenceValue.int(42))")
    #expect(try child(["get", "flag"], home: home) == "value \(PreferenceValue.bool(true))")
    #expect(try child(["get", "name"], home: home) == "value \(PreferenceValue.string("Ada"))")
    #expect(try child(["remove", "name"], home: home) == "ok")
    #expect(try child(["get", "name"], home: home) == "missing")
    let written = FileManager.default.subpaths(atPath: home.path) ?? []
    #expect(written.contains { $0.hasPrefix("config/") && $0.contains("keepsake.tests") })
  }

  @Test("A key given a UserDefaults instance as store: writes that instance in the live context")
  func storeParameterWritesTheInstance() throws {
    let home = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-defaults-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: home) }

    #expect(try child(["shared-set", "account", "ada"], home: home) == "ok")
    // Read back through UserDefaults itself, in another process: the value is in the instance's
    // suite, not in Keepsake's own preferences file.
    #expect(try child(["get", "account"], home: home) == "value \(PreferenceValue.string("ada"))")
    let written = FileManager.default.subpaths(atPath: home.path) ?? []
    #expect(!written.contains { $0.hasPrefix("config/keepsake/") }, "\(written)")
    #expect(written.contains { $0.hasPrefix("config/") && $0.contains("keepsake.tests") })
  }

  /// A temporary home for one test's child processes.
  func home() throws -> TemporaryFolder { try TemporaryFolder() }

  static let web = "https://example.com/a%20b?x=1#top"

  @Test("A URL archived as Apple's UserDefaults.set(_:forKey:) stores it is read by a URL key")
  func archivedURLIsRead() throws {
    let home = try home()
    #expect(try child(["defaults-set-archived-url", "link", Self.web], home: home.url) == "ok")
    #expect(try child(["shared-url", "link"], home: home.url) == "url \(Self.web)")
  }

  @Test("A file URL stored by UserDefaults' own set(_:forKey:) on Linux, a path, is read")
  func pathStoredByUserDefaultsIsRead() throws {
    let home = try home()
    let file = "file:///var/notes/todo%20list.txt"
    #expect(try child(["defaults-set-url", "link", file], home: home.url) == "ok")
    #expect(try child(["get", "link"], home: home.url).hasPrefix("value string("))
    #expect(try child(["shared-url", "link"], home: home.url) == "url \(file)")
  }

  @Test("A URL a key wrote is read whole by UserDefaults.url(forKey:), as SwiftUI's @AppStorage")
  func keyWritesWhatURLForKeyReads() throws {
    let home = try home()
    #expect(try child(["shared-set-url", "link", Self.web], home: home.url) == "ok")
    #expect(try child(["get", "link"], home: home.url).hasPrefix("value data("))
    #expect(try child(["defaults-url", "link"], home: home.url) == "url \(Self.web)")
    #expect(try child(["shared-url", "link"], home: home.url) == "url \(Self.web)")
  }

  @Test("A URL stored as its text, as Keepsake wrote URLs before, is still read")
  func urlStringIsRead() throws {
    let home = try home()
    #expect(try child(["set", "link", "string", Self.web], home: home.url) == "ok")
    #expect(try child(["shared-url", "link"], home: home.url) == "url \(Self.web)")
  }
}
