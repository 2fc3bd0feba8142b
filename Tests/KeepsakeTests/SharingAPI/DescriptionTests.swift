import Foundation
import Keepsake
import Testing

/// Descriptions in swift-sharing's shape: the type and the key as an app writes it, which people
/// paste into issues and logs.
@Suite("Descriptions")
struct DescriptionTests {
  struct User: Sendable {
    var name = "Blob"
    var address = Address()
  }

  struct Address: Sendable {
    var city = "Paris"
  }

  struct Note: Identifiable, Sendable {
    var id: Int
  }

  static let cases: [(String, @Sendable () -> String)] = [
    (
      #"Shared<Int>(.appStorage("count"))"#,
      { Shared(.appStorage("count"), default: 0).description }
    ),
    (
      #"Shared<Int>(.appStorage("count", suiteName: "group.app"))"#,
      { Shared(.appStorage("count", suiteName: "group.app"), default: 0).description }
    ),
    ("Shared<Int>(value: 0)", { Shared(value: 0).description }),
    (#"Shared<String>(value: "a\"b")"#, { Shared(value: #"a"b"#).description }),
    (#"Shared<Int>(.inMemory("count"))"#, { Shared(.inMemory("count"), default: 0).description }),
    (
      "Shared<Int>(.fileStorage(file:///app/count.json))",
      { Shared(.fileStorage(URL(fileURLWithPath: "/app/count.json")), default: 0).description }
    ),
    (
      #"Shared<String>(.inMemory("user")[dynamicMember: \User.name])"#,
      { Shared(.inMemory("user"), default: User()).name.description }
    ),
    (
      #"Shared<String>(.inMemory("user")[dynamicMember: \User.address][dynamicMember: \Address.city])"#,
      { Shared(.inMemory("user"), default: User()).address.city.description }
    ),
    (
      #"SharedReader<String>(.inMemory("user")[dynamicMember: \User.address][dynamicMember: \Address.city])"#,
      { SharedReader(Shared(.inMemory("user"), default: User())).address.city.description }
    ),
    (
      #"SharedReader<Bool>(.inMemory("count").read(as: Bool.self))"#,
      { Shared(.inMemory("count"), default: 0).read { $0 == 0 }.description }
    ),
    (
      #"Shared<Note>(.inMemory("notes")[id: 2])"#,
      { Shared(.inMemory("notes"), default: [Note(id: 2)])[id: 2]?.description ?? "" }
    ),
    (
      #"Shared<Int>(.inMemory("count"))"#,
      { Shared(InMemoryKey<Int>.Default[.inMemory("count"), default: 3]).description }
    ),
  ]

  @Test("A Shared or a reader describes itself by its type and its key", arguments: cases)
  func describes(expected: String, make: @Sendable () -> String) {
    #expect(make() == expected)
  }
}
