import Foundation
import Testing

@testable import Keepsake

/// Optional `.appStorage` values behave as `UserDefaults` users expect.
@Suite("Optional preferences")
struct OptionalPreferenceTests {
  enum Theme: String, Sendable { case light, dark }

  var store: InMemoryPreferences {
    get throws {
      try #require(StorageContext.current.preferences(suiteName: nil) as? InMemoryPreferences)
    }
  }

  @Test("An optional is stored as its native value, and nil removes the preference")
  func nativeAndRemoval() throws {
    @Shared(.appStorage("count")) var count: Int? = nil
    @Shared(.appStorage("name")) var name: String? = nil
    @Shared(.appStorage("theme")) var theme: Theme? = nil
    $count.withLock { $0 = 3 }
    $name.withLock { $0 = "Ada" }
    $theme.withLock { $0 = .dark }
    let store = try store
    #expect(store.value(forKey: "count") == .int(3))
    #expect(store.value(forKey: "name") == .string("Ada"))
    #expect(store.value(forKey: "theme") == .string("dark"))
    $count.withLock { $0 = nil }
    #expect(store.value(forKey: "count") == nil, "removed, not stored as null")
  }

  @Test("A plain value written by someone else reads as the optional's value")
  func plainValueReads() throws {
    let store = try store
    store.set(.int(7), forKey: "written by UserDefaults")
    store.set(.bool(true), forKey: "flag")
    @Shared(.appStorage("written by UserDefaults")) var value: Int? = nil
    @Shared(.appStorage("flag")) var flag: Bool? = nil
    #expect(value == 7)
    #expect(flag == true)
    #expect($value.loadError == nil)
  }
}
