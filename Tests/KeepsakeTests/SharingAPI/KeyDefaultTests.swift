import Foundation
import Keepsake
import Testing

extension SharedKey where Self == InMemoryKey<Bool>.Default {
  fileprivate static var isOn: Self { Self[.inMemory("isOn"), default: false] }
}

extension SharedKey where Self == FileStorageKey<[String]>.Default {
  fileprivate static var tags: Self {
    Self[.fileStorage(URL(fileURLWithPath: "/app/tags.json")), default: ["inbox"]]
  }
}

/// Keys that own their default, and `Shared(require:)`.
@Suite("Key-owned defaults")
struct KeyDefaultTests {
  @Test("A key's own default is used with no default at the use site")
  func keyDefault() {
    @Shared(.isOn) var isOn
    #expect(isOn == false)
    @SharedReader(.isOn) var reader
    $isOn.withLock { $0 = true }
    #expect(reader == true)
  }

  @Test("The first use in a context decides the default")
  func firstUseWins() {
    @Shared(.isOn) var first = true
    @Shared(.isOn) var second = false
    @Shared(.isOn) var third
    #expect(first && second && third)
  }

  @Test("A file key with its default keeps the file protocol (merges, saves)")
  func fileKeyDefault() async throws {
    @Shared(.tags) var tags
    #expect(tags == ["inbox"])
    $tags.withLock { $0.append("work") }
    try await $tags.save()
    let disk = try #require($tags.storageContext.fileSystem as? InMemoryFileSystem)
    #expect(
      try disk.contents(of: URL(fileURLWithPath: "/app/tags.json"))
        == Data(#"["inbox","work"]"#.utf8))
  }

  @Test("Shared(require:) throws when nothing is stored, and reads what is")
  func require() throws {
    let url = URL(fileURLWithPath: "/app/required.json")
    #expect(throws: SharedLoadError.self) { _ = try Shared<Int>(require: .fileStorage(url)) }
    do {
      _ = try Shared<Int>(require: .fileStorage(url))
    } catch {
      #expect((error as? SharedLoadError)?.underlying is NothingStoredError)
    }
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    disk.setContents(Data("7".utf8), at: url)
    let value = try Shared<Int>(require: .fileStorage(url))
    #expect(value.wrappedValue == 7)
    disk.setContents(Data("garbage".utf8), at: URL(fileURLWithPath: "/app/bad.json"))
    #expect(throws: SharedLoadError.self) {
      _ = try Shared<Int>(require: .fileStorage(URL(fileURLWithPath: "/app/bad.json")))
    }
  }
}
