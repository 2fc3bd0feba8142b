import DraftsFeature
import Foundation
import Testing

@testable import Keepsake

@Suite("drafts program")
struct DraftsCommandTests {
  let store = URL(fileURLWithPath: "/home/someone/.local/share/keepsake-drafts/drafts.json")
  var disk: InMemoryFileSystem {
    get throws { try #require(StorageContext.current.fileSystem as? InMemoryFileSystem) }
  }

  func run(_ arguments: String...) async throws(DraftsError) -> String {
    let command = try DraftsCommand.parse(
      ["--store", store.path] + arguments, environment: [:])
    return try await command.run()
  }

  @Test("add, then list shows the draft and the file is a v3 envelope")
  func addAndList() async throws {
    let added = try await run("add", "hello", "world")
    #expect(added.hasPrefix("Added "))
    let table = try await run("list")
    #expect(table.contains("hello world"))
    let bytes = try #require(try disk.contents(of: store))
    #expect(DraftsFormat.version(of: bytes).version == 3)
    #expect(try DraftsFormat.decode(bytes).map(\.body) == ["hello world"])
  }

  @Test("Every command tells of the versions kept beside the store, so every writer is told")
  func keptVersionsAreTold() async throws {
    _ = try await run("add", "mine")
    #expect(!(try await run("list")).contains("other version"))
    let copy = Quarantine.url(for: store, marker: Quarantine.conflictMarker)
    try disk.writeAtomically(try #require(try disk.contents(of: store)), to: copy)
    let listed = try await run("list")
    #expect(listed.contains("1 other version(s)"), "\(listed)")
    #expect(listed.contains("keepsake quarantined"))
    let added = try await run("add", "more")
    #expect(added.hasPrefix("Added ") && added.contains("1 other version(s)"), "\(added)")
    #expect(!(try await run("list", "--json")).contains("other version"), "JSON stays JSON")
  }

  @Test("list --json prints the current-version drafts")
  func listJSON() async throws {
    _ = try await run("add", "ünïcode 👋")
    let json = try await run("list", "--json")
    let drafts = try JSONDecoder().decode([Draft].self, from: Data(json.utf8))
    #expect(drafts.map(\.body) == ["ünïcode 👋"])
    #expect(drafts.first?.tags == [])
  }

  @Test("edit, pin, unpin and discard take a unique ID prefix")
  func editPinDiscard() async throws {
    let id = UUID(uuidString: "A1B2C3D4-0000-4000-8000-000000000001") ?? UUID()
    let other = UUID(uuidString: "A1FFFFFF-0000-4000-8000-000000000002") ?? UUID()
    try disk.setContents(
      try DraftsFormat.encode([Draft(id: id, body: "one"), Draft(id: other, body: "two")]),
      at: store)
    _ = try await run("edit", "a1b2", "uno")
    _ = try await run("pin", "A1B2C3")
    var drafts = try DraftsFormat.decode(try #require(try disk.contents(of: store)))
    #expect(drafts.first == Draft(id: id, body: "uno", pinned: true))
    _ = try await run("unpin", "a1b")
    _ = try await run("discard", "a1f")
    drafts = try DraftsFormat.decode(try #require(try disk.contents(of: store)))
    #expect(drafts == [Draft(id: id, body: "uno", pinned: false)])
  }

  @Test(
    "Bad input gets a one-line error",
    arguments: [
      (["pin", "zzz"], "no draft has an ID starting with 'zzz'"),
      (["add", "   "], "a draft needs some text"),
      (["frobnicate"], "unknown command 'frobnicate'"),
      (["pin"], "pin needs exactly one ID"),
      (["list", "--json", "extra"], "list takes no arguments"),
    ])
  func badInput(_ arguments: [String], _ message: String) async {
    do {
      let command = try DraftsCommand.parse(["--store", store.path] + arguments, environment: [:])
      _ = try await command.run()
      Issue.record("expected an error")
    } catch {
      #expect(error.message.hasPrefix(message), "\(error.message)")
    }
  }

  @Test("An ambiguous prefix names the candidates")
  func ambiguousPrefix() async throws {
    let a = UUID(uuidString: "ABCD0000-0000-4000-8000-000000000001") ?? UUID()
    let b = UUID(uuidString: "ABCE0000-0000-4000-8000-000000000002") ?? UUID()
    try disk.setContents(
      try DraftsFormat.encode([Draft(id: a, body: "x"), Draft(id: b, body: "y")]), at: store)
    await #expect(
      throws: DraftsError("'abc' matches 2 drafts (abcd0000, abce0000); type more of the ID")
    ) {
      try await run("pin", "abc")
    }
  }

  @Test("A v4 store fails every command, names version 4, and stays byte-for-byte the same")
  func futureVersion() async throws {
    let bytes = Data(#"{"version":4,"content":[{"id":"x","body":"from the future"}]}"#.utf8)
    try disk.setContents(bytes, at: store)
    for arguments in [
      ["list"], ["list", "--json"], ["add", "x"], ["pin", "x"], ["discard", "x"],
    ] {
      do {
        let command = try DraftsCommand.parse(
          ["--store", store.path] + arguments, environment: [:])
        _ = try await command.run()
        Issue.record("\(arguments) should fail")
      } catch {
        #expect(error.message.contains("version 4"), "\(error.message)")
      }
    }
    // The failed commands wrote nothing into the store. The draft `add` was asked for is kept
    // beside it for the newer version (a flush can only say again that it is not saved there).
    try? await StorageContext.current.flush()
    #expect(try disk.contents(of: store) == bytes)
    let folder = store.deletingLastPathComponent()
    let kept = try disk.contentsOfDirectory(at: folder).filter {
      KeptCopy(url: folder.appendingPathComponent($0), of: store)?.reason == .unsaved
    }
    #expect(kept.count == 1, "\(kept)")
  }

  @Test("A v1 file written by hand is migrated to v3 with nothing lost")
  func legacyFile() async throws {
    let v1 = Data(
      #"[{"id":"A1B2C3D4-0000-4000-8000-000000000001","text":"old","pinned":true}]"#.utf8)
    try disk.setContents(v1, at: store)
    #expect(try await run("list").contains("old"))
    _ = try await run("add", "new")
    let drafts = try DraftsFormat.decode(try #require(try disk.contents(of: store)))
    #expect(drafts.map(\.body) == ["old", "new"])
    #expect(drafts.first?.pinned == true)
  }

  @Test("The store location follows the environment")
  func location() {
    #expect(
      DraftsLocation.url(environment: ["KEEPSAKE_DRAFTS_STORE": "/x/d.json"]).path == "/x/d.json")
    #expect(
      DraftsLocation.url(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"]).path
        == "/data/keepsake-drafts/drafts.json")
    #expect(
      DraftsLocation.url(environment: ["HOME": "/home/a"]).path
        == "/home/a/.local/share/keepsake-drafts/drafts.json")
  }
}
