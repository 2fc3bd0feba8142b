import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

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

  /// A form `UserDefaults` (or an earlier Keepsake) may keep a URL preference in.
  enum StoredURL: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Keepsake's own form: a URL.
    case url
    /// Archived data, as Apple's `UserDefaults.set(_:forKey:)` and SwiftUI's `@AppStorage` write.
    case archived
    /// A URL's text, as Keepsake wrote URLs before.
    case absoluteString
    /// An absolute path, as `UserDefaults.url(forKey:)` reads a string.
    case path
    /// A path from the home folder.
    case homePath

    var testDescription: String { rawValue }

    static let web = URL(string: "https://example.com/a%20b?x=1#top")

    func stored() throws -> PreferenceValue {
      let web = try #require(Self.web)
      switch self {
      case .url: return .url(web)
      case .archived:
        // NB: made by Foundation, not by Keepsake: the form another writer leaves.
        return .data(
          try NSKeyedArchiver.archivedData(
            withRootObject: web as NSURL, requiringSecureCoding: true))
      case .absoluteString: return .string(web.absoluteString)
      case .path: return .string("/var/notes/todo list.txt")
      case .homePath: return .string("~/Documents/notes.txt")
      }
    }

    func expected() throws -> URL {
      switch self {
      case .url, .archived, .absoluteString: return try #require(Self.web)
      case .path: return URL(fileURLWithPath: "/var/notes/todo list.txt")
      case .homePath: return URL(fileURLWithPath: NSHomeDirectory() + "/Documents/notes.txt")
      }
    }
  }

  @Test(
    "A URL key reads every form UserDefaults keeps a URL in",
    arguments: StorageBackend.allCases, StoredURL.allCases)
  func urlForms(_ backend: StorageBackend, _ form: StoredURL) async throws {
    try await backend.run { disk in
      disk.context.preferences(suiteName: nil).set(try form.stored(), forKey: "link")
      @Shared(.appStorage("link")) var link: URL?
      #expect($link.loadError == nil)
      #expect(link == (try form.expected()))
    }
  }

  @Test(
    "Data that is no archived URL is a load error for a URL key, and is left in place",
    arguments: StorageBackend.allCases)
  func urlKeyOverOtherData(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let store = disk.context.preferences(suiteName: nil)
      let json = Data(#"{"href": "https://example.com"}"#.utf8)
      store.set(.data(json), forKey: "link")
      @Shared(.appStorage("link")) var link = URL(fileURLWithPath: "/")
      #expect($link.loadError != nil)
      #expect(store.value(forKey: "link") == .data(json))
    }
  }

  @Test("A URL key asks its store for the store's own form of URLs, other keys do not")
  func urlKeyAsksForTheStoresURLForm() throws {
    let store = URLFormStore()
    let context = StorageContext(
      name: "URL form", fileSystem: InMemoryFileSystem(), isIsolated: true
    ) { _ in store }
    let expected = try #require(URLFormStore.url)
    StorageContext.withValue(context) {
      @Shared(.appStorage("link")) var link: URL?
      #expect(link == expected)
      @Shared(.appStorage("blob")) var blob = Data()
      #expect(blob == URLFormStore.opaque)
    }
  }

  @Test("A change made outside is observed")
  func outsideChange() async throws {
    @Shared(.appStorage("volume")) var volume = 0.5
    let store = try #require(
      StorageContext.current.preferences(suiteName: nil) as? InMemoryPreferences)
    store.setFromOutside(.double(0.9), forKey: "volume")
    try await $volume.flush()
    #expect(volume == 0.9)
  }
}

/// A store with a form of URLs of its own, as `UserDefaults` on Apple platforms: its plain
/// value is opaque data, its URL value a URL.
private final class URLFormStore: PreferencesStore {
  static let url = URL(string: "https://example.com/own-form")
  static let opaque = Data([0xFE, 0xED])

  func value(forKey key: String) -> PreferenceValue? { .data(Self.opaque) }
  func urlValue(forKey key: String) -> PreferenceValue? { Self.url.map { .url($0) } }
  func set(_ value: PreferenceValue?, forKey key: String) {}
  func observe(_ key: String, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    nil
  }
  func flush() throws {}
}
