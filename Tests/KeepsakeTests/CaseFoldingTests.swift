import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Case-insensitive volumes (APFS's default, FAT, SMB shares, ext4's casefold folders): two
/// spellings of one file are one file, and must be one reference.
@Suite("Case-insensitive volumes")
struct CaseFoldingTests {
  let lower = URL(fileURLWithPath: "/Notes/notes.json")
  let upper = URL(fileURLWithPath: "/Notes/NOTES.json")

  @Test("Two spellings of a file not yet created are one reference and one file")
  func oneReference() async throws {
    let disk = InMemoryFileSystem(caseInsensitive: true)
    let context = StorageContext.inMemory(name: "folding", fileSystem: disk)
    try await StorageContext.withValue(context) {
      @Shared(.fileStorage(lower)) var first = 0
      @Shared(.fileStorage(upper)) var second = 0
      $first.withLock { $0 = 1 }
      #expect(second == 1, "a change through one spelling is seen through the other")
      $second.withLock { $0 = 2 }
      try await $first.save()
      #expect(first == 2)
    }
    #expect(disk.files.count == 1)
    #expect(try disk.contentsOfDirectory(at: URL(fileURLWithPath: "/Notes")) == ["notes.json"])
    #expect(try disk.contents(of: upper) == Data("2".utf8))
  }

  @Test("Unicode spellings of one name (composed and decomposed) are one reference too")
  func normalization() {
    let disk = InMemoryFileSystem(caseInsensitive: true)
    let context = StorageContext.inMemory(name: "folding", fileSystem: disk)
    StorageContext.withValue(context) {
      @Shared(.fileStorage(URL(fileURLWithPath: "/Notes/caf\u{E9}.json"))) var composed = 0
      @Shared(.fileStorage(URL(fileURLWithPath: "/Notes/Cafe\u{301}.json"))) var decomposed = 0
      $composed.withLock { $0 = 7 }
      #expect(decomposed == 7)
    }
  }

  @Test("On a case-sensitive disk two spellings stay two files")
  func caseSensitive() async throws {
    let disk = InMemoryFileSystem()
    let context = StorageContext.inMemory(name: "sensitive", fileSystem: disk)
    try await StorageContext.withValue(context) {
      @Shared(.fileStorage(lower)) var first = 0
      @Shared(.fileStorage(upper)) var second = 0
      $first.withLock { $0 = 1 }
      #expect(second == 0)
      try await $first.save()
      $second.withLock { $0 = 2 }
      try await $second.save()
    }
    #expect(disk.files.count == 2)
  }

  @Test("The real disk here is case-sensitive, and says so without a cost per key")
  func realDisk() throws {
    let folder = try TemporaryFolder()
    let folders = ResolvedFolders()
    #expect(!LocalFileSystem().foldsCase(inFolder: folder.url.path, folders: folders))
    #expect(
      !LocalFileSystem().foldsCase(
        inFolder: folder.url.appendingPathComponent("not/yet/made").path, folders: folders),
      "a folder not made yet answers as the nearest one that exists")
  }
}
