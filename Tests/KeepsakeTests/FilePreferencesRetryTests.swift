import Foundation
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

/// A write of a preferences suite that failed because the file could not be read at that
/// instant: the app's change is written when the file changes and reads again, not at the app's
/// next change, which may never come.
@Suite("File preferences: a failed write tried again")
struct FilePreferencesRetryTests {
  /// The suite at `/prefs/suite.json` of an in-memory disk, holding `json`: what the test
  /// writes there with `setContents` is another program's write, and tells the store's watch.
  static func suite(holding json: String) -> (InMemoryFileSystem, URL) {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/prefs/suite.json")
    disk.setContents(Data(json.utf8), at: url)
    return (disk, url)
  }

  /// How many times the store wrote the suite.
  static func writes(_ disk: InMemoryFileSystem) -> Int {
    disk.operations.filter { $0.operation == .rename && $0.error == nil }.count
  }

  @Test(
    "A change that could not be written is written once the suite reads again",
    arguments: [
      "{not json",  // damaged, then repaired by the person
      "",  // a program writing the file in place (`cp` over it), caught before its bytes
    ])
  func writtenWhenTheFileReadsAgain(unreadable: String) throws {
    let (disk, url) = Self.suite(holding: unreadable)
    let store = FilePreferences(url: url, fileSystem: disk)
    store.set(.bool(true), forKey: "flag")
    #expect(throws: PreferencesError.self) { try store.flush() }
    #expect(try disk.contents(of: url) == Data(unreadable.utf8), "an unreadable file is kept")

    disk.setContents(Data(#"{"font": {"int": 12}}"#.utf8), at: url)
    store.waitUntilIdle()

    let reader = FilePreferences(url: url, fileSystem: disk)
    #expect(reader.value(forKey: "flag") == .bool(true), "the app's change, without a flush")
    #expect(reader.value(forKey: "font") == .int(12), "the repaired file's value stays")
    #expect(store.lastError == nil)
  }

  @Test("A change the file still cannot take waits for the next change of the file")
  func stillUnreadableWaits() throws {
    let (disk, url) = Self.suite(holding: "{not json")
    let store = FilePreferences(url: url, fileSystem: disk)
    store.set(.bool(true), forKey: "flag")
    #expect(throws: PreferencesError.self) { try store.flush() }

    disk.setContents(Data("{still not json".utf8), at: url)
    store.waitUntilIdle()
    #expect(try disk.contents(of: url) == Data("{still not json".utf8))

    disk.setContents(Data("{}".utf8), at: url)
    store.waitUntilIdle()
    #expect(FilePreferences(url: url, fileSystem: disk).value(forKey: "flag") == .bool(true))
  }

  @Test("A write refused for a value this version cannot read is not tried at every change")
  func refusedIsNotRetried() throws {
    // A newer version of the app stores a kind of value this one does not know.
    let newer = #"{"color": {"rgb": [1, 2, 3]}}"#
    let (disk, url) = Self.suite(holding: newer)
    let store = FilePreferences(url: url, fileSystem: disk)
    store.set(.string("red"), forKey: "color")
    #expect(throws: PreferencesError.self) { try store.flush() }
    store.waitUntilIdle()
    let written = Self.writes(disk)

    disk.setContents(Data(newer.utf8), at: url)
    store.waitUntilIdle()
    #expect(Self.writes(disk) == written, "no write follows a change of the file")
  }

  @Test("A key's change another write saved is durable, whatever write failed since")
  func keyDurableWhateverFailedSince() throws {
    let (disk, url) = Self.suite(holding: #"{"font": {"int": 12}}"#)
    let store = FilePreferences(url: url, fileSystem: disk)
    let good = Data(#"{"font": {"int": 14}}"#.utf8)
    // Each time, a program writing the suite in place, caught empty; its write tells no watch.
    disk.setContents(Data(), at: url, notifyingWatchers: false)
    store.set(.string("dark"), forKey: "theme")
    #expect(throws: PreferencesError.self) { try store.flush(forKey: "theme") }
    disk.setContents(good, at: url, notifyingWatchers: false)
    store.set(.int(3), forKey: "size")
    try store.flush(forKey: "size")
    disk.setContents(Data(), at: url, notifyingWatchers: false)
    store.set(.int(1), forKey: "count")
    #expect(throws: PreferencesError.self) { try store.flush(forKey: "count") }

    #expect(throws: Never.self) { try store.flush(forKey: "theme") }
    #expect(throws: PreferencesError.self, "the store's flush") { try store.flush() }
  }

  @Test("On the real disk, a change caught by a program's in-place write is saved after it")
  func inPlaceWriteOnTheRealDisk() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    try Data(#"{"font": {"int": 12}}"#.utf8).write(to: url)
    let store = FilePreferences(url: url)
    // The program has opened the file with `O_TRUNC` and not yet written its bytes.
    let program = try FileHandle(forWritingTo: url)
    try program.truncate(atOffset: 0)
    store.set(.bool(true), forKey: "flag")
    #expect(throws: PreferencesError.self) { try store.flush() }

    try program.write(contentsOf: Data(#"{"font": {"int": 14}}"#.utf8))
    try program.close()

    let saved = await waitUntil {
      (try? Data(contentsOf: url)).map { FilePreferences.suiteHolds($0, "flag") } ?? false
    }
    #expect(saved, "the app's change is written after the program's")
    let reader = FilePreferences(url: url)
    #expect(reader.value(forKey: "font") == .int(14), "the program's value stays")
  }
}

extension FilePreferences {
  /// Whether the suite's bytes hold `key`.
  fileprivate static func suiteHolds(_ data: Data, _ key: String) -> Bool {
    guard case .object(let members)? = try? JSONValue(reading: data) else { return false }
    return members[key] != nil
  }
}

@Suite("App storage: a failed write tried again")
struct AppStorageRetryTests {
  @Test("A key whose write met a program's in-place write is saved after it, its error cleared")
  func keySavedAfterTheProgram() async throws {
    let folder = try TemporaryFolder()
    let url = AppStorageDurabilityTests.suiteURL(in: folder.url)
    let context = StorageContext.confined(to: folder.url)
    let theme = StorageContext.withValue(context) { Shared(.appStorage("theme"), default: "") }
    theme.withLock { $0 = "light" }
    try await theme.save()

    let program = try FileHandle(forWritingTo: url)
    try program.truncate(atOffset: 0)
    theme.withLock { $0 = "dark" }
    await #expect(throws: SharedSaveError.self) { try await theme.save() }
    try program.write(contentsOf: Data(#"{"font": {"int": 14}}"#.utf8))
    try program.close()

    #expect(
      await waitUntil {
        FilePreferences(url: url).value(forKey: "theme") == .string("dark")
      }, "the change is written after the program's")
    #expect(await waitUntil { theme.saveError == nil }, "and its error is gone")
    #expect(FilePreferences(url: url).value(forKey: "font") == .int(14))
  }
}

extension AppStorageRetryTests {
  @Test("A key's change kept while its suite could not be read is saved once it is repaired")
  func protectedChangeSavedAfterTheRepair() async throws {
    let folder = try TemporaryFolder()
    let url = AppStorageDurabilityTests.suiteURL(in: folder.url)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("{not json".utf8).write(to: url)
    let context = StorageContext.confined(to: folder.url)
    let theme = StorageContext.withValue(context) { Shared(.appStorage("theme"), default: "") }
    #expect(theme.loadError != nil)
    theme.withLock { $0 = "dark" }
    #expect(await waitUntil { theme.saveError != nil })

    try Data(#"{"font": {"int": 14}}"#.utf8).write(to: url)
    #expect(await waitUntil { theme.loadError == nil }, "the repaired suite reads")
    #expect(
      await waitUntil { FilePreferences(url: url).value(forKey: "theme") == .string("dark") },
      "the change kept meanwhile is written")
    #expect(theme.saveError == nil)
  }
}

extension AppStorageRetryTests {
  @Test("A key whose write failed shows no error once a write of another key saved it")
  func errorClearsWhenALaterWriteSavesTheKey() async throws {
    let (disk, url) = FilePreferencesRetryTests.suite(holding: #"{"font": {"int": 12}}"#)
    let context = StorageContext(name: "suite", fileSystem: disk, isIsolated: true) { _ in
      FilePreferences(url: url, fileSystem: disk)
    }
    let theme = StorageContext.withValue(context) { Shared(.appStorage("theme"), default: "") }
    let size = StorageContext.withValue(context) { Shared(.appStorage("size"), default: 0) }
    // A program writes the suite in place: caught empty, and its write tells no watch, so the
    // next write that saves the key is the app's own, of another key.
    disk.setContents(Data(), at: url, notifyingWatchers: false)
    theme.withLock { $0 = "dark" }
    await #expect(throws: SharedSaveError.self) { try await theme.save() }
    disk.setContents(Data(#"{"font": {"int": 14}}"#.utf8), at: url, notifyingWatchers: false)

    size.withLock { $0 = 3 }
    try await size.save()
    let reader = FilePreferences(url: url, fileSystem: disk)
    #expect(reader.value(forKey: "theme") == .string("dark"), "saved with the other key")
    #expect(reader.value(forKey: "font") == .int(14))
    #expect(await waitUntil { theme.saveError == nil }, "its error is over")
  }
}
