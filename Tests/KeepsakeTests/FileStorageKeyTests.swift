import Foundation
import Testing

@_spi(Testing) @testable import Keepsake

@Suite("File storage")
struct FileStorageKeyTests {
  let url = URL(fileURLWithPath: "/Users/someone/Library/items.json")

  struct Item: Codable, Equatable, Sendable {
    var id: Int
    var title: String
  }

  static let good = Data(#"[{"id":1,"title":"milk"},{"id":2,"title":"eggs"}]"#.utf8)

  @Test("A stored file is read when the key is first used", arguments: StorageBackend.allCases)
  func readsStoredFile(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Self.good, to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      #expect(items == [Item(id: 1, title: "milk"), Item(id: 2, title: "eggs")])
      #expect($items.loadError == nil)
    }
  }

  @Test(
    "A missing file is not an error and nothing is written until a change",
    arguments: StorageBackend.allCases)
  func missingFile(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      @Shared(.fileStorage(url)) var items: [Item] = [Item(id: 0, title: "default")]
      #expect(items == [Item(id: 0, title: "default")])
      #expect($items.loadError == nil)
      try await $items.flush()
      #expect(try disk.contents(of: url) == nil)
      $items.withLock { $0.append(Item(id: 1, title: "new")) }
      try await $items.flush()
      let saved = try #require(try disk.contents(of: url))
      #expect(try JSONDecoder().decode([Item].self, from: saved).count == 2)
    }
  }

  static let damaged: [(String, Data)] = [
    ("corrupted", Data(#"[{"id":1,"title":"milk"},{"id":2,"ti"#.utf8) + Data([0xFF, 0x00])),
    ("truncated", Data(#"[{"id":1,"title":"milk"},{"id":2,"#.utf8)),
    ("empty", Data()),
    ("wrong shape", Data(#"{"items":[{"id":1,"title":"milk"}]}"#.utf8)),
    ("wrong type deep inside", Data(#"[{"id":1,"title":"milk"},{"id":"2","title":"eggs"}]"#.utf8)),
  ]

  @Test(
    "An unreadable file is reported and never overwritten",
    arguments: StorageBackend.allCases, damaged)
  func unreadableFileIsProtected(_ backend: StorageBackend, _ damaged: (String, Data)) async throws
  {
    let (name, bytes) = damaged
    try await backend.run { disk in
      try disk.write(bytes, to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      let loadError = try #require($items.loadError)
      #expect(loadError.url == url)
      #expect(String(describing: loadError).contains(url.path))
      #expect(String(describing: loadError).contains("left untouched"))
      #expect(items.isEmpty, "the default is kept in memory")

      $items.withLock { $0.append(Item(id: 9, title: "typed after the failure")) }
      $items.withLock { $0.append(Item(id: 10, title: "and again")) }
      await #expect(throws: SharedSaveError.self) { try await $items.flush() }
      await #expect(throws: SharedSaveError.self) { try await $items.save() }
      #expect(try disk.contents(of: url) == bytes, "\(name): the bytes are identical")
      guard case .protected? = $items.saveError else {
        Issue.record(
          "saveError should say the file is protected, got \(String(describing: $items.saveError))"
        )
        return
      }
    }
  }

  @Test("A decoding failure names the coding path", arguments: StorageBackend.allCases)
  func decodingFailureNamesPath(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Data(#"[{"id":1,"title":"milk"},{"id":"2","title":"eggs"}]"#.utf8), to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      let text = String(describing: try #require($items.loadError))
      #expect(text.contains("[1].id"), "\(text)")
    }
  }

  @Test(
    "Starting over quarantines the damaged bytes beside the file, then saves",
    arguments: StorageBackend.allCases)
  func replaceUnreadableData(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let bytes = Data("not json".utf8)
      try disk.write(bytes, to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      $items.withLock { $0 = [Item(id: 1, title: "fresh start")] }
      let quarantine = try #require(try await $items.replaceUnreadableData())
      #expect(quarantine.deletingLastPathComponent() == url.deletingLastPathComponent())
      #expect(quarantine.lastPathComponent.hasPrefix("items.quarantined-"))
      #expect(quarantine.pathExtension == "json")
      #expect(Quarantine.originalURL(of: quarantine) == url)
      #expect(try disk.contents(of: quarantine) == bytes)
      let saved = try #require(try disk.contents(of: url))
      #expect(
        try JSONDecoder().decode([Item].self, from: saved) == [Item(id: 1, title: "fresh start")])
      #expect($items.loadError == nil)
      #expect($items.saveError == nil)
    }
  }

  @Test("A burst of 10,000 mutations does a handful of writes")
  func coalescedSaves() async throws {
    @Shared(.fileStorage(url)) var items: [Item] = []
    for index in 0..<10_000 {
      $items.withLock { $0.append(Item(id: index, title: "item \(index)")) }
    }
    try await $items.flush()
    let disk = try #require($items.storageContext.fileSystem as? InMemoryFileSystem)
    let writes = disk.completedWrites(of: url)
    #expect((1...5).contains(writes), "\(writes) writes")
    let saved = try #require(try disk.contents(of: url))
    #expect(try JSONDecoder().decode([Item].self, from: saved).count == 10_000)
  }

  @Test(
    "Concurrent mutations from many tasks all reach the file", arguments: StorageBackend.allCases)
  func concurrentMutations(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      @Shared(.fileStorage(url)) var items: [Item] = []
      let shared = $items
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
          group.addTask {
            for index in 0..<500 {
              shared.withLock { $0.append(Item(id: task * 1000 + index, title: "")) }
            }
          }
        }
      }
      try await $items.flush()
      let saved = try #require(try disk.contents(of: url))
      let decoded = try JSONDecoder().decode([Item].self, from: saved)
      #expect(decoded.count == 4_000)
      #expect(Set(decoded.map(\.id)).count == 4_000)
    }
  }

  @Test("save() returns once the file is in place, written atomically")
  func explicitSave() async throws {
    @Shared(.fileStorage(url)) var items: [Item] = []
    $items.withLock { $0 = [Item(id: 1, title: "now")] }
    try await $items.save()
    let disk = try #require($items.storageContext.fileSystem as? InMemoryFileSystem)
    let operations = disk.operations.map(\.operation)
    #expect(operations.suffix(4) == [.write, .fsync, .rename, .fsync])
    #expect(try disk.contents(of: url) != nil)
  }

  @Test("A file replaced by someone else is read again", arguments: StorageBackend.allCases)
  func outsideChangeIsLoaded(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      @Shared(.fileStorage(url)) var items: [Item] = []
      try disk.write(Self.good, to: url)
      try await disk.eventually($items) { [items = $items] in items.wrappedValue.count == 2 }
    }
  }

  @Test(
    "A file replaced by someone else with unreadable data becomes protected",
    arguments: StorageBackend.allCases)
  func outsideDamageIsProtected(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Self.good, to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      let damaged = Data(#"{"version": 99, "content": []}"#.utf8)
      try disk.write(damaged, to: url)
      try await disk.eventually($items) { [items = $items] in items.loadError != nil }
      $items.withLock { $0.append(Item(id: 3, title: "later")) }
      await #expect(throws: SharedSaveError.self) { try await $items.flush() }
      #expect(try disk.contents(of: url) == damaged)
    }
  }

  @Test(
    "A save checks the file first, even before a watcher reported a change",
    arguments: StorageBackend.allCases)
  func saveChecksForOutsideDamage(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Self.good, to: url)
      @Shared(.fileStorage(url)) var items: [Item] = []
      let damaged = Data("garbage".utf8)
      // Written behind the key's back: on the in-memory file system no watcher hears of it; on the
      // real one the save may run before the kernel tells the watcher.
      if let memory = disk.inMemory {
        memory.setContents(damaged, at: url, notifyingWatchers: false)
      } else {
        try disk.write(damaged, to: url)
      }
      $items.withLock { $0.append(Item(id: 3, title: "later")) }
      await #expect(throws: SharedSaveError.self) { try await $items.save() }
      #expect(try disk.contents(of: url) == damaged)
    }
  }
}
