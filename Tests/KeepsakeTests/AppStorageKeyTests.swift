import Foundation
import Keepsake
import KeepsakeTesting
import Testing

@Suite("App storage")
struct AppStorageKeyTests {
  enum Theme: String, Codable, Sendable { case light, dark }
  enum Level: Int, Sendable {
    case low = 1
    case high = 2
  }
  struct Layout: Codable, Equatable, Sendable { var columns: Int }

  @Test("Each supported type is stored and read back")
  func roundTrips() throws {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    do {
      @Shared(.appStorage("bool")) var bool = false
      @Shared(.appStorage("int")) var int = 0
      @Shared(.appStorage("double")) var double = 0.0
      @Shared(.appStorage("string")) var string = ""
      @Shared(.appStorage("data")) var data = Data()
      @Shared(.appStorage("url")) var url = URL(fileURLWithPath: "/")
      @Shared(.appStorage("date")) var storedDate = Date.distantPast
      @Shared(.appStorage("strings")) var strings: [String] = []
      @Shared(.appStorage("theme")) var theme = Theme.light
      @Shared(.appStorage("level")) var level = Level.low
      @Shared(.appStorage("layout")) var layout = Layout(columns: 1)
      $bool.withLock { $0 = true }
      $int.withLock { $0 = 42 }
      $double.withLock { $0 = 2.5 }
      $string.withLock { $0 = "héllo 👋" }
      $data.withLock { $0 = Data([1, 2, 3]) }
      $url.withLock { $0 = URL(string: "https://example.com/a?b=c")! }
      $storedDate.withLock { $0 = date }
      $strings.withLock { $0 = ["a", "b"] }
      $theme.withLock { $0 = .dark }
      $level.withLock { $0 = .high }
      $layout.withLock { $0 = Layout(columns: 3) }
    }
    let store = StorageContext.current.preferences(suiteName: nil)
    #expect(store.value(forKey: "bool") == .bool(true))
    #expect(store.value(forKey: "int") == .int(42))
    #expect(store.value(forKey: "double") == .double(2.5))
    #expect(store.value(forKey: "string") == .string("héllo 👋"))
    #expect(store.value(forKey: "data") == .data(Data([1, 2, 3])))
    #expect(store.value(forKey: "date") == .date(date))
    #expect(store.value(forKey: "strings") == .strings(["a", "b"]))
    #expect(store.value(forKey: "theme") == .string("dark"))
    #expect(store.value(forKey: "level") == .int(2))
    guard case .data(let json)? = store.value(forKey: "layout") else {
      Issue.record("a Codable value is stored as JSON data")
      return
    }
    #expect(try JSONDecoder().decode(Layout.self, from: json) == Layout(columns: 3))
  }

  @Test("A stored value is read by a key created later")
  func seededValue() {
    StorageContext.current.preferences(suiteName: "group").set(.int(7), forKey: "launches")
    @Shared(.appStorage("launches", suiteName: "group")) var launches = 0
    #expect(launches == 7)
  }

  @Test("A value of the wrong type is a load error and is left in place")
  func wrongType() {
    let store = StorageContext.current.preferences(suiteName: nil)
    store.set(.string("seven"), forKey: "count")
    @Shared(.appStorage("count")) var count = 0
    #expect($count.loadError != nil)
    $count.withLock { $0 = 8 }
    #expect(store.value(forKey: "count") == .string("seven"))
  }

  @Test("A change made outside is observed")
  func outsideChange() async throws {
    @Shared(.appStorage("volume")) var volume = 0.5
    let store = try #require(
      StorageContext.current.preferences(suiteName: nil) as? EphemeralPreferences)
    store.setFromOutside(.double(0.9), forKey: "volume")
    await $volume.flush()
    #expect(volume == 0.9)
  }
}

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

  @Test(
    "A suite file with a malformed value is unreadable, with a reason",
    arguments: [
      (#"{"k": {"date": "yesterday"}}"#, "Not an ISO 8601 date: yesterday"),
      (#"{"k": {"url": ""}}"#, "Not a URL"),
      (#"{"k": {"int": 1, "bool": true}}"#, "exactly one type key"),
      (#"{"k": {"colour": "red"}}"#, "exactly one type key"),
    ])
  func malformedValue(_ json: String, _ reason: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    try Data(json.utf8).write(to: url)
    let store = FilePreferences(url: url)
    let error = try #require(store.lastError as? PreferencesError)
    #expect(String(describing: error).contains(reason), "\(error)")
    #expect(String(describing: error).contains("left untouched"))
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
}
