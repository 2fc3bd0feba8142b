import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Symbolic links and hard links on the way to a key's file, on the real disk: links are written
/// through, always, and every spelling of one file is one key.
@Suite("Links")
struct LinkTests {
  struct Item: Codable, Equatable, Identifiable, Sendable {
    var id: Int
  }

  @Test(
    "A dangling link's target is created by the first save, and the link is kept",
    arguments: ["target.json", "sub/target.json"])
  func danglingLink(_ destination: String) async throws {
    let disk = try RealDisk()
    let link = disk.file("items.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: destination)
    let items = disk.shared(.fileStorage(link), in: disk.process(), default: [Item]())
    #expect(items.loadError == nil)

    items.withLock { $0.append(Item(id: 1)) }
    try await items.save()

    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == destination)
    let target = disk.file(destination)
    let saved = try #require(FileManager.default.contents(atPath: target.path))
    #expect(try JSONDecoder().decode([Item].self, from: saved) == [Item(id: 1)])
    // The lock is beside the file the link leads to, where every spelling of it finds it.
    let folder = target.deletingLastPathComponent()
    #expect(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("target.json.lock").path)
    )
    #expect(!disk.folder.names.contains("items.json.lock"))
  }

  @Test(
    "Keys naming one file through a linked folder, `..` or a link are one reference",
    arguments: [
      "linked/items.json", "real/../real/items.json", "alias.json", "linked/../real/items.json",
    ])
  func oneFileOneReference(_ spelling: String) async throws {
    let disk = try RealDisk()
    try FileManager.default.createDirectory(
      at: disk.file("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("linked").path, withDestinationPath: "real")
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("alias.json").path, withDestinationPath: "real/items.json")
    let process = disk.process()
    let real = disk.shared(
      .fileStorage(disk.file("real/items.json")), in: process, default: [Item]())
    let other = disk.shared(.fileStorage(disk.file(spelling)), in: process, default: [Item]())

    #expect(other.keyID == real.keyID)
    real.withLock { $0.append(Item(id: 7)) }
    #expect(
      other.wrappedValue == [Item(id: 7)], "a change through one is seen through the other at once")
    // NB: written before the folder goes: a save after it would make the folder again.
    try await process.flush()
  }

  @Test("Once a folder is known, each key's own link is still followed")
  func linkInAKnownFolder() throws {
    let disk = try RealDisk()
    try FileManager.default.createDirectory(
      at: disk.file("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("linked").path, withDestinationPath: "real")
    try Data("[]".utf8).write(to: disk.file("real/one.json"))
    let process = disk.process()
    let one = disk.shared(
      .fileStorage(disk.file("linked/one.json")), in: process, default: [Item]())
    // Made after the key above, in the same folder: the folder's resolution is reused.
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("real/alias.json").path, withDestinationPath: "one.json")
    let alias = disk.shared(
      .fileStorage(disk.file("linked/alias.json")), in: process, default: [Item]())
    #expect(alias.keyID == one.keyID)
    #expect(one.keyID.name.hasSuffix("/real/one.json"))
  }

  @Test("A save through one spelling inside a transaction on another returns at once")
  func noDeadlockBetweenSpellings() async throws {
    let disk = try RealDisk()
    try FileManager.default.createDirectory(
      at: disk.file("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("linked").path, withDestinationPath: "real")
    let process = disk.process()
    let real = disk.shared(
      .fileStorage(disk.file("real/items.json")), in: process, default: [Item]())
    let linked = disk.shared(
      .fileStorage(disk.file("linked/items.json")), in: process, default: [Item]())

    // NB: before links were resolved these were two keys sharing one lock file: the save waited
    // for the transaction's lock for 30 s, then threw, blaming another process.
    try await real.withTransaction {
      linked.withLock { $0.append(Item(id: 1)) }
      try await linked.save()
    }
    let saved = try #require(
      FileManager.default.contents(atPath: disk.file("real/items.json").path))
    #expect(try JSONDecoder().decode([Item].self, from: saved) == [Item(id: 1)])
  }

  @Test("Two names of a hard-linked file are two keys that never wait for each other")
  func hardLinks() async throws {
    let disk = try RealDisk()
    let first = disk.file("first.json")
    let second = disk.file("second.json")
    try Data("[]".utf8).write(to: first)
    #expect(link(first.path, second.path) == 0)
    let process = disk.process()
    let a = disk.shared(.fileStorage(first), in: process, default: [Item]())
    let b = disk.shared(.fileStorage(second), in: process, default: [Item]())
    #expect(a.keyID != b.keyID)

    // Each name has its own lock: a save of one inside a transaction on the other goes through.
    try await a.withTransaction {
      b.withLock { $0.append(Item(id: 2)) }
      try await b.save()
    }
    // An atomic save gives the name it went through a file of its own: the link is broken, as
    // the Data safety article says, and the other name keeps the bytes it had.
    #expect(try Data(contentsOf: first) == Data("[]".utf8))
    let saved = try Data(contentsOf: second)
    #expect(try JSONDecoder().decode([Item].self, from: saved) == [Item(id: 2)])
  }

  @Test("`..` after a link is taken from where the link leads, as the system does")
  func dotDotAfterALink() throws {
    let disk = try RealDisk()
    let fileSystem = LocalFileSystem()
    try FileManager.default.createDirectory(at: disk.file("a/b"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: disk.file("link").path, withDestinationPath: "a/b")
    // `link/..` is `a`, not the folder the link is in.
    let resolved = try fileSystem.resolve(disk.file("link/../new.json"))
    let folder = try fileSystem.resolve(disk.folder.url.appendingPathComponent("x"))
      .deletingLastPathComponent()
    #expect(resolved.path == folder.appendingPathComponent("a/new.json").path)
  }
}
