import Foundation
import Testing

@_spi(Testing) @testable import Keepsake

@Suite("Kept copies")
struct KeptCopyTests {
  let folder = URL(fileURLWithPath: "/data/notes")
  var file: URL { folder.appendingPathComponent("drafts.json") }

  func copy(_ reason: String, _ stamp: String = "20261129T210300Z", of name: String = "drafts")
    -> URL
  {
    folder.appendingPathComponent("\(name).\(reason)-\(stamp).json")
  }

  @Test("A copy's name tells why it was kept and what it is a copy of")
  func namesAreRead() throws {
    for reason in KeptCopy.Reason.allCases {
      let kept = try #require(KeptCopy(url: copy(reason.rawValue)))
      #expect(kept.reason == reason)
      #expect(kept.original == file)
      #expect(KeptCopy(url: copy(reason.rawValue), of: file)?.reason == reason)
    }
    for name in [
      "drafts.json", "drafts.conflict-yesterday.json", "drafts.saved-20261129T210300Z.json",
      ".conflict-20261129T210300Z.json",
      ".drafts.conflict-20261129T210300Z.json.keepsake-tmp-4242-17",
    ] {
      #expect(KeptCopy(url: folder.appendingPathComponent(name)) == nil, "\(name)")
    }
  }

  @Test("A copy is of one file in its own folder, and no other")
  func copyOfOneFile() {
    let other = folder.appendingPathComponent("other.json")
    let elsewhere = URL(fileURLWithPath: "/data/elsewhere/drafts.json")
    #expect(KeptCopy(url: copy("conflict"), of: other) == nil)
    #expect(KeptCopy(url: copy("conflict"), of: elsewhere) == nil)
  }

  @Test(
    "The copies of a file are listed oldest first, without other files' copies",
    arguments: StorageBackend.allCases)
  func listsCopiesOfAFile(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let context = disk.context
      try disk.write(Data("now".utf8), to: file)
      try disk.write(Data("b".utf8), to: copy("conflict", "20261130T080000Z"))
      try disk.write(Data("a".utf8), to: copy("conflict", "20261129T080000Z"))
      try disk.write(Data("u".utf8), to: copy("unsaved"))
      try disk.write(Data("o".utf8), to: copy("conflict", of: "other"))
      let copies = try context.keptCopies(of: file)
      #expect(
        copies.map(\.url) == [
          copy("conflict", "20261129T080000Z"), copy("conflict", "20261130T080000Z"),
          copy("unsaved"),
        ])
      #expect(copies.allSatisfy { $0.original == file })
      #expect(try context.keptCopies(in: folder).count == 4)
    }
  }

  @Test("Through a symbolic link, the copies are those beside the file it leads to")
  func copiesThroughALink() throws {
    let disk = try RealDisk()
    let context = disk.process()
    try FileManager.default.createDirectory(
      at: disk.file("real"), withIntermediateDirectories: true)
    let target = disk.file("real").appendingPathComponent("drafts.json")
    try Data("[]".utf8).write(to: target)
    let conflict = disk.file("real").appendingPathComponent(
      "drafts.conflict-20261129T210300Z.json")
    try Data("[1]".utf8).write(to: conflict)
    let link = disk.file("notes.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

    let copies = try context.keptCopies(of: link)

    #expect(copies.map(\.url.lastPathComponent) == [conflict.lastPathComponent])
    #expect(copies.first?.original?.lastPathComponent == "drafts.json")

    // A copy named as the link's: the file it leads to takes it, and the link stays a link.
    let named = try #require(KeptCopy(url: conflict, of: target))
    let throughLink = KeptCopy(url: named.url, reason: named.reason, original: link)
    let kept = try #require(try context.restore(throughLink))
    #expect(try Data(contentsOf: target) == Data("[1]".utf8))
    #expect(kept.url.deletingLastPathComponent().path == target.deletingLastPathComponent().path)
    #expect(kept.url.lastPathComponent.hasPrefix("drafts.kept-"))
    #expect(try Data(contentsOf: kept.url) == Data("[]".utf8))
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
  }

  @Test("A folder that is not there is an error, not a folder without copies")
  func missingFolder() {
    let context = StorageContext.inMemory(name: "kept copies")
    #expect(throws: FileSystemError.self) {
      try context.keptCopies(in: URL(fileURLWithPath: "/no/such/folder"))
    }
  }

  @Test(
    "A restore puts the copy back, keeps the file it replaced, and an open key reads it",
    arguments: StorageBackend.allCases)
  func restores(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Data(#""current""#.utf8), to: file)
      @Shared(.fileStorage(file)) var text = ""
      #expect(text == "current")
      let conflict = copy("conflict")
      try disk.write(Data(#""theirs""#.utf8), to: conflict)

      let restored = try #require(KeptCopy(url: conflict))
      let kept = try #require(try disk.context.restore(restored))

      #expect(try disk.contents(of: file) == Data(#""theirs""#.utf8))
      #expect(kept.reason == .kept)
      #expect(kept.original == file)
      #expect(try disk.contents(of: kept.url) == Data(#""current""#.utf8))
      #expect(try disk.contents(of: conflict) == nil)
      #expect(try disk.context.keptCopies(of: file).map(\.url) == [kept.url])
      try await $text.load()
      #expect(text == "theirs")
    }
  }

  @Test(
    "An unsaved change is restored as the change it keeps, not as the file that keeps it",
    arguments: StorageBackend.allCases)
  func restoresUnsavedChange(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Data(#""current""#.utf8), to: file)
      let unsaved = copy("unsaved")
      let kept = UnsavedChange(
        reason: "the file was unreadable", change: Data(#""mine""#.utf8),
        base: Data(#""before""#.utf8))
      try disk.write(try UnsavedChange.encoder.encode(kept), to: unsaved)
      @Shared(.fileStorage(file)) var text = ""

      try disk.context.restore(try #require(KeptCopy(url: unsaved)))

      #expect(try disk.contents(of: file) == Data(#""mine""#.utf8))
      #expect(try disk.contents(of: unsaved) == nil)
      try await $text.load()
      #expect(text == "mine")
      #expect($text.loadError == nil)
    }
  }

  @Test("A change kept in the state folder, its file's folder gone, names its file and goes back")
  func restoresChangeKeptAway() async throws {
    let disk = try RealDisk()
    let context = disk.process()
    let folder = disk.file("store")
    // NB: a name of its own: the isolated state folder is the machine's temporary folder.
    let file = folder.appendingPathComponent("away-\(UUID().uuidString).json")
    let text = disk.shared(.fileStorage(file, saveInterval: .seconds(60)), in: context, default: "")
    text.withLock { $0 = "current" }
    try await text.save()
    let gone = disk.file("gone")
    try FileManager.default.moveItem(at: folder, to: gone)
    try FileManager.default.removeItem(at: gone)

    text.withLock { $0 = "mine" }
    await #expect(throws: SharedSaveError.self) { try await text.save() }
    let away = UnsavedChange.awayFolder(in: context)
    let kept = try #require(
      try context.keptCopies(in: away).first {
        $0.url.lastPathComponent.hasPrefix(file.deletingPathExtension().lastPathComponent)
      })
    #expect(kept.reason == .unsaved)
    #expect(kept.original == file, "the file it is a change to, not a file in the state folder")

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    #expect(try context.keptCopies(of: file).isEmpty, "not a copy beside the file")
    try context.restore(kept)
    #expect(try Data(contentsOf: file) == Data(#""mine""#.utf8))
    #expect(!FileManager.default.fileExists(atPath: kept.url.path), "the kept change is taken")
    #expect(
      !FileManager.default.fileExists(
        atPath: away.appendingPathComponent(file.lastPathComponent).path),
      "nothing was written into the state folder")
  }

  @Test("A change an ended process kept away from its file is merged by the next to open it")
  func changeKeptAwayIsBroughtBack() async throws {
    let disk = try RealDisk()
    let folder = disk.file("store")
    let file = folder.appendingPathComponent("back-\(UUID().uuidString).json")
    let key: FileStorageKey<[String: String]> = .fileStorage(file, saveInterval: .seconds(60))
    do {
      let first = disk.process("first")
      let notes = disk.shared(key, in: first, default: [:])
      notes.withLock { $0["a"] = "current" }
      try await notes.save()
      try FileManager.default.moveItem(at: folder, to: disk.file("gone"))
      notes.withLock { $0["b"] = "mine" }
      await #expect(throws: SharedSaveError.self) { try await notes.save() }
    }
    let away = UnsavedChange.awayFolder(in: disk.process())
    func keptAway() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: away.path).filter {
        $0.hasPrefix(file.deletingPathExtension().lastPathComponent)
      }
    }
    #expect(try keptAway().count == 1, "the refused change is kept, away from its folder")

    // Still gone: the next process leaves the change where it is.
    let early = disk.shared(key, in: disk.process("early"), default: [:])
    #expect(early.wrappedValue == [:])
    #expect(try keptAway().count == 1)

    // Someone puts the folder back, and edits the file meanwhile.
    try FileManager.default.moveItem(at: disk.file("gone"), to: folder)
    try Data(#"{"a":"current","c":"theirs"}"#.utf8).write(to: file)
    let later = disk.shared(key, in: disk.process("later"), default: [:])
    try await later.load()
    let merged = ["a": "current", "b": "mine", "c": "theirs"]
    #expect(later.wrappedValue == merged)
    #expect(try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file)) == merged)
    #expect(try keptAway().isEmpty, "taken")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy {
        !$0.contains(".unsaved-")
      }, "nothing left beside the file")
  }

  @Test(
    "A path written into an unsaved change beside its file is not where a restore writes",
    arguments: StorageBackend.allCases)
  func pathInsideCopyBesideFileIsIgnored(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      try disk.write(Data(#""current""#.utf8), to: file)
      let elsewhere = URL(fileURLWithPath: "/data/elsewhere/victim.json")
      try disk.write(Data(#""victim""#.utf8), to: elsewhere)
      var planted = UnsavedChange(
        reason: "the file was unreadable", change: Data(#""mine""#.utf8), base: nil)
      planted.file = elsewhere.path
      let unsaved = copy("unsaved")
      try disk.write(try UnsavedChange.encoder.encode(planted), to: unsaved)

      let listed = try #require(try disk.context.keptCopies(in: folder).first)
      #expect(listed.original == file)
      try disk.context.restore(listed)
      #expect(try disk.contents(of: file) == Data(#""mine""#.utf8))
      #expect(try disk.contents(of: elsewhere) == Data(#""victim""#.utf8))
    }
  }

  @Test("A copy larger than the limit is refused, and nothing changes")
  func refusesTooLarge() async throws {
    try await StorageBackend.inMemory.run { disk in
      try disk.write(Data("current".utf8), to: file)
      let conflict = copy("conflict")
      try disk.write(Data(repeating: 0x20, count: 100), to: conflict)
      let before = try disk.names(in: folder).sorted()
      let large = try #require(KeptCopy(url: conflict))
      #expect {
        try disk.context.restore(large, maximumSize: 99)
      } throws: { error in
        guard case .tooLarge = (error as? FileSystemError)?.reason else { return false }
        return true
      }
      #expect(try disk.names(in: folder).sorted() == before)
      #expect(try disk.contents(of: file) == Data("current".utf8))
    }
  }

  @Test("A copy whose original is not known is refused, and nothing changes")
  func refusesUnknownOriginal() async throws {
    try await StorageBackend.inMemory.run { disk in
      let conflict = copy("conflict")
      try disk.write(Data("theirs".utf8), to: conflict)
      let unknown = KeptCopy(url: conflict, reason: .conflict, original: nil)
      #expect(throws: FileSystemError.self) { try disk.context.restore(unknown) }
      #expect(try disk.names(in: folder) == [conflict.lastPathComponent])
    }
  }
}
