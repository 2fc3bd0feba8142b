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

/// A suite a program removes before putting its next version in place (Syncthing's replace, a
/// script's `rm` then `cp`): a write in between must not leave the suite holding only the keys
/// this process changed.
@Suite("File preferences: a suite removed for an instant")
struct FilePreferencesRemovedTests {
  /// A suite of three keys at `/prefs/suite.json` of an in-memory disk, opened by a store whose
  /// grace is `grace`; the test removes it with `setContents(nil)`, which tells the store's
  /// watch as a program's `rm` does.
  static func openedSuite(grace: Duration) -> (InMemoryFileSystem, URL, FilePreferences) {
    let (disk, url) = FilePreferencesRetryTests.suite(
      holding: #"{"font": {"int": 12}, "theme": {"string": "dark"}, "color": {"rgb": [1, 2]}}"#)
    let store = FilePreferences(url: url, fileSystem: disk, removalGrace: grace)
    return (disk, url, store)
  }

  @Test("A write while the suite is gone waits for the version put back, and merges into it")
  func writeWaitsForTheVersionPutBack() throws {
    // NB: a grace no run of the test outlasts, so the write is inside it by construction.
    let (disk, url, store) = Self.openedSuite(grace: .seconds(3600))
    disk.setContents(nil, at: url)
    store.set(.bool(true), forKey: "flag")
    store.waitUntilIdle()
    #expect(store.value(forKey: "font") == .int(12), "the keys keep their values meanwhile")
    #expect(try disk.contents(of: url) == nil, "no suite of the change alone in its place")

    disk.setContents(Data(#"{"font": {"int": 14}, "color": {"rgb": [1, 2]}}"#.utf8), at: url)
    store.waitUntilIdle()
    let written = FilePreferences(url: url, fileSystem: disk)
    #expect(written.value(forKey: "flag") == .bool(true), "merged into the version put back")
    #expect(written.value(forKey: "font") == .int(14))
    #expect(written.readError(forKey: "color") != nil, "a value of a newer version, kept")
  }

  @Test("A flush while the suite is gone returns once its change is in the version put back")
  func flushWaitsForTheVersionPutBack() async throws {
    let (disk, url, store) = Self.openedSuite(grace: .seconds(3600))
    disk.setContents(nil, at: url)
    store.set(.bool(true), forKey: "flag")
    // NB: the flush blocks its thread until the version is put back: off the pool, so the
    // test's own wait, and every other test, keep running.
    let flush = Task { await offThePool { Result { try store.flush(forKey: "flag") } } }
    #expect(await waitUntil { store.waitsForReplacement }, "the flush waits")
    disk.setContents(Data(#"{"font": {"int": 14}}"#.utf8), at: url)
    try await flush.value.get()

    let written = FilePreferences(url: url, fileSystem: disk)
    #expect(written.value(forKey: "flag") == .bool(true))
    #expect(written.value(forKey: "font") == .int(14))
  }

  @Test("A flush while the suite stays gone returns after the grace, its change written alone")
  func flushAfterTheGrace() throws {
    let (disk, url, store) = Self.openedSuite(grace: .milliseconds(50))
    disk.setContents(nil, at: url)
    store.set(.bool(true), forKey: "flag")
    try store.flush(forKey: "flag")

    let written = FilePreferences(url: url, fileSystem: disk)
    #expect(written.value(forKey: "flag") == .bool(true))
    #expect(written.value(forKey: "font") == nil, "the removal taken in")
    #expect(store.value(forKey: "font") == nil)
  }

  @Test("A suite that arrives during the grace is taken in, and a write merges with it")
  func suitePutBackIsTakenIn() throws {
    let (disk, url, store) = Self.openedSuite(grace: .seconds(3600))
    disk.setContents(nil, at: url)
    store.waitUntilIdle()
    disk.setContents(Data(#"{"font": {"int": 14}}"#.utf8), at: url)
    store.waitUntilIdle()
    #expect(store.value(forKey: "font") == .int(14))
    #expect(store.value(forKey: "theme") == nil, "the new version has no theme")

    store.set(.bool(true), forKey: "flag")
    try store.flush()
    let written = FilePreferences(url: url, fileSystem: disk)
    #expect(written.value(forKey: "font") == .int(14))
    #expect(written.value(forKey: "theme") == nil, "the program's version is the suite")
    #expect(written.value(forKey: "flag") == .bool(true))
  }

  @Test("A suite removed for good is taken in after the grace: a write then holds its keys only")
  func removalTakenInAfterTheGrace() throws {
    let (disk, url, store) = Self.openedSuite(grace: .zero)
    disk.setContents(nil, at: url)
    store.waitUntilIdle()
    #expect(store.value(forKey: "font") == nil, "removed: every key reads its default")

    store.set(.bool(true), forKey: "flag")
    try store.flush()
    let written = FilePreferences(url: url, fileSystem: disk)
    #expect(written.value(forKey: "flag") == .bool(true))
    #expect(written.value(forKey: "font") == nil)
  }
}

extension FilePreferencesRemovedTests {
  @Test("A suite still gone when the grace ends is taken in as removed")
  func removalTakenInWhenTheGraceEnds() async throws {
    let (disk, url, store) = Self.openedSuite(grace: .milliseconds(50))
    disk.setContents(nil, at: url)
    #expect(await waitUntil { store.value(forKey: "font") == nil })
    store.set(.bool(true), forKey: "flag")
    try store.flush()
    #expect(FilePreferences(url: url, fileSystem: disk).value(forKey: "font") == nil)
  }
}
