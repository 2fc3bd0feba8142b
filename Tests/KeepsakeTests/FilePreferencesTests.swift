import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

@Suite("File preferences")
struct FilePreferencesTests {
  @Test("Values survive a new store on the same file")
  func persists() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let first = FilePreferences(url: url)
    first.set(.string("dark"), forKey: "theme")
    first.set(.date(Date(timeIntervalSince1970: 0)), forKey: "installed")
    try first.flush()
    let second = FilePreferences(url: url)
    #expect(second.value(forKey: "theme") == .string("dark"))
    #expect(second.value(forKey: "installed") == .date(Date(timeIntervalSince1970: 0)))
  }

  @Test("Two writers of different keys lose neither")
  func twoWriters() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    // Two stores on one file behave like two processes: each has its own memory and file
    // descriptors, and only the lock and the file are shared.
    let a = FilePreferences(url: url)
    let b = FilePreferences(url: url)
    for index in 0..<100 {
      a.set(.int(index), forKey: "a\(index)")
      b.set(.int(index), forKey: "b\(index)")
      if index % 10 == 0 {
        try a.flush()
        try b.flush()
      }
    }
    try a.flush()
    try b.flush()
    let reader = FilePreferences(url: url)
    for index in 0..<100 {
      #expect(reader.value(forKey: "a\(index)") == .int(index))
      #expect(reader.value(forKey: "b\(index)") == .int(index))
    }
  }

  /// A program that ignores the lock (an editor, a script) and replaces the suite file while a
  /// write runs, after the write read it: `times` times, or at every attempt.
  final class RacingProgram: ForwardingFileSystem, @unchecked Sendable {
    let bytes = Data(#"{"editor": {"string": "vim"}}"#.utf8)
    let remaining: Mutex<Int>

    init(_ base: any FileSystem, times: Int) {
      remaining = Mutex(times)
      super.init(base)
    }

    override func replaceAtomically(
      _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
    ) throws -> FileIdentity? {
      let lands = remaining.withLock { count in
        defer { count -= 1 }
        return count > 0
      }
      if lands { try base.writeAtomically(bytes, to: url) }
      return try super.replaceAtomically(
        data, at: url, expecting: expected, creatingFolder: creatingFolder)
    }
  }

  @Test(
    "A file replaced by another program during a write is read and merged, never written over",
    arguments: [false, true])
  func replacedDuringWrite(fileExisted: Bool) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    if fileExisted { try Data(#"{"font": {"int": 12}}"#.utf8).write(to: url) }
    let suite = FilePreferences(url: url, fileSystem: RacingProgram(LocalFileSystem(), times: 2))
    suite.set(.string("dark"), forKey: "theme")
    try suite.flush()
    let reader = FilePreferences(url: url)
    #expect(reader.value(forKey: "editor") == .string("vim"), "the other program's value stays")
    #expect(reader.value(forKey: "theme") == .string("dark"))
    #expect(folder.names == ["suite.json", "suite.json.lock"], "no temporary file is left")
  }

  @Test("A program that replaces the file at every attempt gets an error, never a lost value")
  func replacedAtEveryAttempt() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let suite = FilePreferences(url: url, fileSystem: RacingProgram(LocalFileSystem(), times: 100))
    suite.set(.string("dark"), forKey: "theme")
    #expect {
      try suite.flush()
    } throws: { error in
      (error as? FileSystemError)?.reason == .replacedMeanwhile
    }
    #expect(try Data(contentsOf: url) == Data(#"{"editor": {"string": "vim"}}"#.utf8))
    #expect(suite.value(forKey: "theme") == .string("dark"), "the change stays, pending")
  }

  @Test(
    "A malformed value is unreadable, with a reason and without the value; its suite reads",
    arguments: [
      (
        #"{"k": {"date": "yesterday"}}"#,
        "the value is not valid at k.date (Not an ISO 8601 date)", "yesterday"
      ),
      (#"{"k": {"url": "http://[oops"}}"#, "the value is not valid at k.url (Not a URL)", "oops"),
      (
        #"{"k": {"int": 1, "bool": true}}"#,
        "the value is not valid at k (A preference must be an object with exactly one type key)",
        "true"
      ),
      (
        #"{"k": {"colour": "crimson"}}"#,
        "the value is not valid at k (A preference must be an object with exactly one type key)",
        "crimson"
      ),
    ])
  func malformedValue(_ json: String, _ reason: String, _ storedValue: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    try Data(json.utf8).write(to: url)
    let store = FilePreferences(url: url)
    #expect(store.readError == nil, "the suite reads; only the key's value does not")
    let error = try #require(store.readError(forKey: "k") as? PreferencesError)
    #expect(
      error.description
        == "The value of \"k\" in the preferences file \(url.path) could not be read (\(reason)). "
        + "It has been left untouched, and this key's changes are not written over it; the other "
        + "keys are read and saved as usual.")
    #expect(!error.description.contains(storedValue))
  }

  @Test("Every kind of value survives the suite file")
  func everyKindRoundTrips() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let values: [String: PreferenceValue] = [
      "bool": .bool(true), "int": .int(-3), "double": .double(0.25), "string": .string("é"),
      "data": .data(Data([0, 255])), "date": .date(Date(timeIntervalSince1970: 1_700_000_000)),
      "url": .url(URL(fileURLWithPath: "/tmp/x")), "strings": .strings(["a", "b"]),
    ]
    let writer = FilePreferences(url: url)
    for (key, value) in values { writer.set(value, forKey: key) }
    try writer.flush()
    let reader = FilePreferences(url: url)
    for (key, value) in values { #expect(reader.value(forKey: key) == value, "\(key)") }
  }

  @Test("An unreadable suite file is never overwritten")
  func unreadableSuite() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let garbage = Data("{not json".utf8)
    try garbage.write(to: url)
    let store = FilePreferences(url: url)
    store.set(.bool(true), forKey: "flag")
    #expect(throws: PreferencesError.self) { try store.flush() }
    #expect(try Data(contentsOf: url) == garbage)
  }

  /// A context whose preferences are `FilePreferences` on the real disk in `folder`.
  static func context(_ folder: TemporaryFolder, maximumSize: Int? = nil) -> StorageContext {
    let url = folder.file("suite.json")
    return StorageContext(
      name: "file preferences", fileSystem: InMemoryFileSystem(), isIsolated: true
    ) { _ in
      maximumSize.map {
        FilePreferences(url: url, fileSystem: LocalFileSystem(), maximumSize: $0)
      } ?? FilePreferences(url: url)
    }
  }

  @Test("A key of a suite that cannot be read reports it as its load error, not as a default")
  func unreadableSuiteIsALoadError() throws {
    let folder = try TemporaryFolder()
    let garbage = Data("{not json".utf8)
    try garbage.write(to: folder.file("suite.json"))
    try StorageContext.withValue(Self.context(folder)) {
      @Shared(.appStorage("theme")) var theme = "light"
      let error = try #require($theme.loadError)
      #expect(error.description.contains("could not be read"))
      $theme.withLock { $0 = "dark" }
      #expect(throws: (any Error).self) {
        try StorageContext.current.preferences(suiteName: nil).flush()
      }
    }
    #expect(try Data(contentsOf: folder.file("suite.json")) == garbage)
  }

  @Test("A value this version cannot read keeps the suite's other keys readable and saved")
  func unreadableValueKeepsTheOthers() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    // A newer version of the app stores a kind of value this one does not know.
    try Data(#"{"color": {"rgb": [1, 2, 3]}, "theme": {"string": "dark"}}"#.utf8).write(to: url)
    let store = FilePreferences(url: url)
    #expect(store.value(forKey: "theme") == .string("dark"))
    #expect(store.readError == nil, "the suite as a whole reads")
    #expect(store.readError(forKey: "theme") == nil)
    guard
      case .unreadableValue(_, let key, _)? = store.readError(forKey: "color") as? PreferencesError
    else {
      Issue.record(
        "expected the color's own error, got \(String(describing: store.readError(forKey: "color")))"
      )
      return
    }
    #expect(key == "color")

    store.set(.string("light"), forKey: "theme")
    try store.flush()
    let saved = try JSONValue(reading: Data(contentsOf: url))
    #expect(saved["theme"] == ["string": "light"])
    #expect(saved["color"] == ["rgb": [1, 2, 3]], "kept as the newer version wrote it")

    // Its own key's change is refused, not written over the newer version's value.
    store.set(.string("red"), forKey: "color")
    #expect(throws: PreferencesError.self) { try store.flush() }
    #expect(try JSONValue(reading: Data(contentsOf: url))["color"] == ["rgb": [1, 2, 3]])
  }

  @Test("A key whose value cannot be read reports it as its load error; its neighbours load")
  func unreadableValueIsThatKeysLoadError() throws {
    let folder = try TemporaryFolder()
    try Data(#"{"color": {"rgb": [1, 2, 3]}, "theme": {"string": "dark"}}"#.utf8)
      .write(to: folder.file("suite.json"))
    StorageContext.withValue(Self.context(folder)) {
      @Shared(.appStorage("theme")) var theme = "light"
      @Shared(.appStorage("color")) var color = "blue"
      #expect(theme == "dark")
      #expect($theme.loadError == nil)
      #expect($color.loadError?.description.contains("\"color\"") == true)
    }
  }

  @Test("A suite is never written past the size it can be read back at")
  func suiteLimit() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let store = FilePreferences(url: url, fileSystem: LocalFileSystem(), maximumSize: 64)
    store.set(.string("short"), forKey: "a")
    try store.flush()
    let saved = try Data(contentsOf: url)
    store.set(.string(String(repeating: "x", count: 100)), forKey: "b")
    #expect {
      try store.flush()
    } throws: { error in
      guard case .valueTooLarge? = (error as? FileSystemError)?.reason else { return false }
      return true
    }
    #expect(try Data(contentsOf: url) == saved, "the suite as it was, readable at the next launch")
    #expect(
      FilePreferences(url: url, fileSystem: LocalFileSystem(), maximumSize: 64)
        .value(forKey: "a") == .string("short"))
  }

  @Test(
    "A suite's name is a name, never a path out of the suites' folder",
    arguments: [
      ("group.app", "group.app.json"), ("../escaped", "%2E.%2Fescaped.json"),
      ("a/b", "a%2Fb.json"), ("50%", "50%25.json"), (".hidden", "%2Ehidden.json"), ("", "%.json"),
    ])
  func suiteNames(_ suite: String, _ file: String) {
    let url = FilePreferences.defaultURL(suiteName: suite)
    #expect(url.lastPathComponent == file)
    #expect(url.deletingLastPathComponent().lastPathComponent == "keepsake")
  }
}
