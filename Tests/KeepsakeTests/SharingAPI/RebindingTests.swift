import Foundation
import Keepsake
import Testing

/// Pointing a `Shared` at another key at run time.
@Suite("Rebinding")
struct RebindingTests {
  struct Profile: Codable, Equatable, Sendable {
    var name: String
  }

  @Test("load(_:) switches to another file, with this Shared's default when it is empty")
  func loadAnotherKey() async throws {
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    let ada = URL(fileURLWithPath: "/accounts/ada.json")
    let grace = URL(fileURLWithPath: "/accounts/grace.json")
    disk.setContents(try JSONEncoder().encode(Profile(name: "Ada")), at: ada)
    @Shared(.fileStorage(ada)) var profile = Profile(name: "nobody")
    #expect(profile.name == "Ada")
    try await $profile.load(.fileStorage(grace))
    #expect(profile.name == "nobody")
    $profile.withLock { $0.name = "Grace" }
    try await $profile.save()
    #expect(try disk.contents(of: grace) == (try JSONEncoder().encode(Profile(name: "Grace"))))
    #expect(
      try JSONDecoder().decode(Profile.self, from: #require(try disk.contents(of: ada))).name
        == "Ada")
    $profile = Shared(.fileStorage(ada), default: Profile(name: "nobody"))
    #expect(profile.name == "Ada")
  }

  @Test("load(_:) of an unreadable file throws and protects it")
  func loadUnreadable() async throws {
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    let bad = URL(fileURLWithPath: "/accounts/bad.json")
    disk.setContents(Data("{".utf8), at: bad)
    @Shared(.inMemory("profile")) var profile = Profile(name: "x")
    await #expect(throws: SharedLoadError.self) { try await $profile.load(.fileStorage(bad)) }
    #expect($profile.loadError != nil)
  }
}
