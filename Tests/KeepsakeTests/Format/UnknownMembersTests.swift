import Foundation
@_spi(Testing) import Keepsake
import Testing

/// Fields a version of the app does not know survive its writes: an older version never erases
/// what a newer one wrote because it cannot see it.
@Suite("Members a model does not know")
struct UnknownMembersTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/items.json")

  /// An item as the newer version writes it: with a color.
  struct NewItem: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var title: String
    var note: String?
    var color: String?
  }

  /// The same item as the older version knows it: no color.
  struct OldItem: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var title: String
    var note: String?
  }

  func stored(_ disk: InMemoryFileSystem) throws -> [NewItem] {
    try JSONDecoder().decode([NewItem].self, from: #require(try disk.contents(of: url)))
  }

  @Test("An older version's save keeps every field a newer version added")
  func olderSaveKeepsNewerFields() async throws {
    let world = TwoContexts()
    let newer = [
      NewItem(id: 1, title: "one", color: "red"), NewItem(id: 2, title: "two", color: "blue"),
    ]
    try world.disk.writeAtomically(try JSONEncoder().encode(newer), to: url)
    let older = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [OldItem]())
    older.withLock {
      $0[0].title = "one, edited by the older app"
      $0.append(OldItem(id: 3, title: "three"))
    }
    try await older.save()
    let items = try stored(world.disk)
    #expect(items.map(\.color) == ["red", "blue", nil])
    #expect(items.map(\.title) == ["one, edited by the older app", "two", "three"])
  }

  @Test("A field the model knows and removed stays removed; a deleted element takes its fields")
  func removalsStayRemoved() async throws {
    let world = TwoContexts()
    let newer = [
      NewItem(id: 1, title: "one", note: "a note", color: "red"),
      NewItem(id: 2, title: "two", color: "blue"),
    ]
    try world.disk.writeAtomically(try JSONEncoder().encode(newer), to: url)
    let older = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [OldItem]())
    older.withLock {
      $0[0].note = nil
      $0.removeAll { $0.id == 2 }
    }
    try await older.save()
    let text = String(decoding: try #require(try world.disk.contents(of: url)), as: UTF8.self)
    #expect(try stored(world.disk) == [NewItem(id: 1, title: "one", color: "red")], "\(text)")
  }

  @Test("Merged with another process's change, the newer fields survive too")
  func mergeKeepsNewerFields() async throws {
    let world = TwoContexts()
    try world.disk.writeAtomically(
      try JSONEncoder().encode([NewItem(id: 1, title: "one", color: "red")]), to: url)
    let older = world.inFirst(.fileStorage(url, saveInterval: .seconds(60)), default: [OldItem]())
    let newer = world.inSecond(.fileStorage(url, saveInterval: .seconds(60)), default: [NewItem]())
    older.withLock { $0.append(OldItem(id: 2, title: "older's")) }
    newer.withLock { $0.append(NewItem(id: 3, title: "newer's", color: "green")) }
    try await newer.save()
    try await older.save()
    let items = try stored(world.disk)
    #expect(Set(items.map(\.id)) == [1, 2, 3])
    #expect(items.first { $0.id == 1 }?.color == "red")
    #expect(items.first { $0.id == 3 }?.color == "green")
  }

  @Test("A plain value keeps the fields it does not know, and its own changes win")
  func plainValue() async throws {
    struct Old: Codable, Equatable, Sendable { var theme: String }
    struct New: Codable, Equatable, Sendable {
      var theme: String
      var fontSize: Int
    }
    let world = TwoContexts()
    let settings = url.deletingLastPathComponent().appendingPathComponent("settings.json")
    try world.disk.writeAtomically(
      try JSONEncoder().encode(New(theme: "light", fontSize: 14)), to: settings)
    let older = world.inFirst(
      .fileStorage(settings, saveInterval: .seconds(60)), default: Old(theme: ""))
    older.withLock { $0.theme = "dark" }
    try await older.save()
    let data = try #require(try world.disk.contents(of: settings))
    #expect(try JSONDecoder().decode(New.self, from: data) == New(theme: "dark", fontSize: 14))
  }
}
