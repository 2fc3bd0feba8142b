import Foundation
import Keepsake
import Testing

/// Pointing a `Shared` at another key at run time, as swift-sharing users do it.
@Suite("Rebinding")
struct RebindingTests {
  struct Profile: Codable, Equatable, Sendable {
    var name: String
  }

  struct User: Equatable, Sendable {
    let id: Int
    var name = ""
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

  @Test("Assigning another Shared to $value is seen by copies taken before")
  func assignmentSeenByCopies() {
    @Shared(value: 0) var count
    let copy = $count
    $count = Shared(value: 42)
    #expect(copy.wrappedValue == 42)
    copy.withLock { $0 += 1 }
    #expect(count == 43, "the copy changes the new value, not the old one")
  }

  @Test("load(_:) is seen by copies taken before, and leaves other Shareds of the old key alone")
  func loadSeenByCopies() async throws {
    @Shared(.inMemory("b")) var other = 7
    @Shared(.inMemory("a")) var count = 1
    @Shared(.inMemory("a")) var sameKey = 1
    let copy = $count
    try await $count.load(.inMemory("b"))
    #expect(copy.wrappedValue == 7)
    copy.withLock { $0 = 8 }
    #expect(other == 8)
    #expect(sameKey == 1, "another Shared of the old key stays on it")
  }

  @Test("Projections made before a rebinding keep the value they were made from")
  func projectionsKeepTheirValue() {
    @Shared(value: User(id: 1, name: "Blob")) var user
    let id = $user.id
    let name = $user.name
    $user = Shared(value: User(id: 1729))
    #expect(id.wrappedValue == 1)
    #expect(name.wrappedValue == "Blob")
    #expect($user.id.wrappedValue == 1729, "a projection made after follows the new value")
  }

  @Test(
    "A projection made after a rebinding changes the new value, and keeps it when rebound again")
  func projectionMadeAfterRebinding() {
    @Shared(value: User(id: 1, name: "Blob")) var user
    let first = $user
    let second = Shared(value: User(id: 2, name: "Ada"))
    $user = second
    let name = $user.name
    name.withLock { $0 = "Grace" }
    #expect(second.wrappedValue.name == "Grace")
    $user = Shared(value: User(id: 3, name: "Lin"))
    name.withLock { $0 += "!" }
    #expect(name.wrappedValue == "Grace!")
    #expect(second.wrappedValue.name == "Grace!")
    #expect(user.name == "Lin")
    #expect(first.wrappedValue.name == "Lin", "copies taken before follow the Shared")
  }

  @Test("A projection's variable given another Shared changes, its copies keep the part")
  func projectionVariableRebinding() {
    @Shared(value: User(id: 1, name: "Blob")) var user
    @Shared var name: String
    _name = $user.name
    let copy = $name
    $name = Shared(value: "Ada")
    #expect(name == "Ada")
    #expect(copy.wrappedValue == "Blob")
    #expect(user.name == "Blob")
    let later = $name
    $name = Shared(value: "Grace")
    #expect(later.wrappedValue == "Grace", "once rebound, the variable's copies follow")
  }

  @Test("load(_:) on a projection throws SharedRebindingError and changes nothing")
  func loadOnProjection() async throws {
    @Shared(value: User(id: 1, name: "Blob")) var user
    let name = $user.name
    await #expect(throws: SharedRebindingError.self) { try await name.load(.inMemory("n")) }
    #expect(name.wrappedValue == "Blob")
  }

  @Test("A reader given another reader is seen by copies taken before")
  func readerRebinding() {
    @SharedReader(.inMemory("a")) var a = 1
    let copy = $a
    $a = SharedReader(.inMemory("b"), default: 2)
    #expect(copy.wrappedValue == 2)
    #expect(a == 2)
  }

  @Test("A reader made from a Shared stays on its key when the Shared is pointed elsewhere")
  func readerOfSharedDoesNotFollow() {
    @Shared(value: 1) var count
    let reader = SharedReader($count)
    $count = Shared(value: 2)
    #expect(reader.wrappedValue == 1)
    var rebound = reader
    rebound.projectedValue = SharedReader(value: 3)
    #expect(count == 2, "rebinding the reader does not move the Shared")
  }

  /// A view model on the main actor, as most apps write them.
  @MainActor
  final class AccountModel {
    @Shared var profile: Profile

    init(_ profile: Shared<Profile>) {
      _profile = profile
    }

    func switchAccount(to name: String) async throws {
      try await $profile.load(.inMemory("profile-\(name)"))
    }
  }

  @Test("load(_:) can be called on a main-actor view model's property")
  @MainActor
  func loadFromMainActorModel() async throws {
    @Shared(.inMemory("profile-grace")) var grace = Profile(name: "Grace")
    let model = AccountModel(Shared(.inMemory("profile-ada"), default: Profile(name: "Ada")))
    try await model.switchAccount(to: "grace")
    #expect(model.profile.name == "Grace")
  }
}
