import Foundation
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// In a synced folder other users can write, what another user planted (a conflict copy, a
/// link named like one) is never merged into a store of this user.
@Suite(
  "Copies other users plant",
  .enabled(if: geteuid() == 0, "needs root, to make a file another user's"))
struct ForeignCopyTests {
  let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"

  func open(_ url: URL) -> Shared<[Note]> {
    let context = StorageContext.inMemory(
      name: "app", fileSystem: LocalFileSystem(), clock: .manual())
    return StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .seconds(60)), default: [Note]())
    }
  }

  @Test("A conflict copy owned by another user, or a link, is never merged; one of this user is")
  func foreignCopyIsNotMerged() async throws {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(
      at: folder.file(".stfolder"), withIntermediateDirectories: true)
    let url = folder.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "mine")]).write(to: url)
    func version(_ id: Int) throws -> Data {
      try JSONEncoder().encode([Note(id: 1, text: "mine"), Note(id: id, text: "other")])
    }
    // Another user's copy, a link named like a copy, and a copy of this user.
    let foreign = folder.file("notes.sync-conflict-20261201-152748-AAAAAAA.json")
    let planted = try version(99)
    try planted.write(to: foreign)
    #expect(chown(foreign.path, 65534, 65534) == 0)
    let elsewhere = folder.file("elsewhere.txt")
    try version(98).write(to: elsewhere)
    let link = folder.file("notes.sync-conflict-20261201-152749-BBBBBBB.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
    try version(77).write(to: folder.file("notes.sync-conflict-20261201-152750-CCCCCCC.json"))
    let notes = open(url)
    // The scan that takes in this user's copy has looked at the others too.
    #expect(await eventually { notes.wrappedValue.map(\.id).contains(77) })
    #expect(notes.wrappedValue.map(\.id).sorted() == [1, 77], "only this user's copy is merged")
    #expect(
      (try? Data(contentsOf: foreign)) == planted,
      "another user's copy is left as it is \(folder.names)")
    #expect(FileManager.default.fileExists(atPath: link.path))
  }

  @Test("Copies another user planted never count toward the bound, and are never pruned")
  func foreignCopiesAreNotPruned() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("settings.json")
    try Data("{}".utf8).write(to: url)
    var planted: [URL] = []
    for index in 0..<Quarantine.conflictCopyLimit {
      let copy = folder.file("settings.conflict-20260101T00000\(index)Z.json")
      try Data("{\"n\": \(index)}".utf8).write(to: copy)
      #expect(chown(copy.path, 65534, 65534) == 0)
      planted.append(copy)
    }
    let kept = try ConflictCopies.keep(
      Data("{\"mine\": 1}".utf8), besides: url, in: LocalFileSystem())
    #expect(kept.pruned.isEmpty)
    for copy in planted { #expect(FileManager.default.fileExists(atPath: copy.path)) }
  }
}
