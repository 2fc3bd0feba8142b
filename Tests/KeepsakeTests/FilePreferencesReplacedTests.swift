import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

@Suite("File preferences: a suite replaced by a program")
struct FilePreferencesReplacedTests {
  /// Replaces the suite the way Syncthing does: its new version written beside, the old file
  /// removed, the new one renamed in.
  func replaceAsSyncthing(_ url: URL, with json: String) throws {
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      ".syncthing.suite.json.tmp")
    try Data(json.utf8).write(to: temporary)
    try FileManager.default.removeItem(at: url)
    try FileManager.default.moveItem(at: temporary, to: url)
  }

  @Test("A running store sees every version a program replaces the suite with")
  func seesEachReplacement() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    try Data(#"{"count": {"int": 1}}"#.utf8).write(to: url)
    let store = FilePreferences(url: url)
    for count in 2...4 {
      try replaceAsSyncthing(url, with: #"{"count": {"int": \#(count)}}"#)
      #expect(await waitUntil { store.value(forKey: "count") == .int(count) }, "\(count)")
    }
    store.set(.string("dark"), forKey: "theme")
    try store.flush()
    let reader = FilePreferences(url: url)
    #expect(reader.value(forKey: "count") == .int(4))
    #expect(reader.value(forKey: "theme") == .string("dark"))
  }
}
