import Foundation
import Testing

@testable import Keepsake

/// `.appStorage(key, store: UserDefaults)`, swift-sharing's spelling of a suite, under test:
/// the instance names the key's storage but is never written here.
@Suite("The store: parameter of appStorage")
struct PreferencesStoreParameterTests {
  /// A suite no test writes: under test the instance is only a name.
  static func defaults() throws -> UserDefaults {
    try #require(UserDefaults(suiteName: "keepsake.tests.store.\(UUID().uuidString)"))
  }

  @Test("Keys with the same instance share one reference, another instance is another store")
  func identity() throws {
    let group = try Self.defaults()
    let other = try Self.defaults()
    @Shared(.appStorage("count", store: group)) var a = 0
    @Shared(.appStorage("count", store: group)) var b = 0
    @Shared(.appStorage("count", store: other)) var c = 0
    @Shared(.appStorage("count")) var plain = 0
    $a.withLock { $0 = 5 }
    #expect(b == 5)
    #expect(c == 0)
    #expect(plain == 0)
    #expect($a.keyID == $b.keyID)
    #expect($a.keyID != $c.keyID)
  }

  @Test("UserDefaults.standard is the default suite")
  func standardIsTheDefaultSuite() {
    @Shared(.appStorage("flag", store: .standard)) var viaStore = false
    @Shared(.appStorage("flag")) var plain = false
    $viaStore.withLock { $0 = true }
    #expect(plain)
    #expect($viaStore.keyID == $plain.keyID)
  }

  @Test("Under test the value goes to the test's own preferences, never to the instance")
  func isolatedUnderTest() throws {
    let group = try Self.defaults()
    @Shared(.appStorage("name", store: group)) var name = "none"
    $name.withLock { $0 = "Ada" }
    #expect(group.object(forKey: "name") == nil)
    let key = AppStorageKey<String>.appStorage("name", store: group)
    #expect(try key.load(in: .current) == "Ada")
    #expect(StorageContext.current.preferences(suiteName: nil).value(forKey: "name") == nil)
  }
}
