import Foundation
import Keepsake
import Testing

/// swift-sharing's spellings that code moved over unchanged relies on.
@Suite("swift-sharing spellings")
struct SpellingTests {
  struct Note: Codable, Equatable, Sendable {
    var text: String
  }

  struct Memo: Codable, Equatable, Sendable {
    var bodyText: String
  }

  @Test("fileStorage(_:decoder:encoder:) reads and writes with the given coders")
  func fileStorageWithCoders() async throws {
    let url = URL(fileURLWithPath: "/app/note.json")
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    disk.setContents(Data(#"{"body_text":"stored"}"#.utf8), at: url)
    @Shared(.fileStorage(url, decoder: decoder, encoder: encoder)) var memo = Memo(bodyText: "none")
    #expect(memo.bodyText == "stored")
    $memo.withLock { $0.bodyText = "changed" }
    try await $memo.save()
    #expect(try disk.contents(of: url) == Data(#"{"body_text":"changed"}"#.utf8))
  }

  @Test(
    "fileStorage(_:decode:encode:) uses the given functions, and never writes over what they cannot read"
  )
  func fileStorageWithFunctions() async throws {
    let url = URL(fileURLWithPath: "/app/count.txt")
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    disk.setContents(Data("not a number".utf8), at: url)
    struct NotANumber: Error {}
    let key = FileStorageKey<Int>.fileStorage(
      url,
      decode: { data in
        guard let value = Int(String(decoding: data, as: UTF8.self)) else { throw NotANumber() }
        return value
      },
      encode: { Data(String($0).utf8) })
    @Shared(key) var count = 0
    #expect($count.loadError != nil)
    $count.withLock { $0 = 3 }
    await #expect(throws: SharedSaveError.self) { try await $count.save() }
    #expect(try disk.contents(of: url) == Data("not a number".utf8))
  }

  @Test("An optional key needs no default: nil while nothing is stored")
  func optionalWithoutDefault() {
    @Shared(.inMemory("maybe")) var maybe: Int?
    #expect(maybe == nil)
    @SharedReader(.inMemory("maybe")) var reader: Int?
    $maybe.withLock { $0 = 4 }
    #expect(reader == 4)
  }

  @Test("require is spelled with await, Shared and SharedReader alike")
  func requireWithAwait() async throws {
    @Shared(.inMemory("required")) var seeded = 7
    let shared = try await Shared<Int>(require: .inMemory("required"))
    let reader = try await SharedReader<Int>(require: .inMemory("required"))
    #expect(shared.wrappedValue == 7)
    #expect(reader.wrappedValue == 7)
  }

  @Test("projectedValue, value and optional initializers make the readers swift-sharing does")
  func readerInitializers() throws {
    @Shared(value: Note(text: "a")) var note
    let same = Shared(projectedValue: $note)
    same.withLock { $0.text = "b" }
    #expect(note.text == "b")
    let reader = SharedReader(projectedValue: SharedReader(value: 3))
    #expect(reader.wrappedValue == 3)
    @Shared(value: nil) var optional: Int?
    #expect(SharedReader($optional) == nil)
    $optional.withLock { $0 = 1 }
    let unwrapped = try #require(SharedReader($optional))
    let fromReader = try #require(SharedReader(SharedReader($optional)))
    $optional.withLock { $0 = 2 }
    #expect(unwrapped.wrappedValue == 2)
    #expect(fromReader.wrappedValue == 2)
  }
}
