import Foundation
@_spi(Testing) import Keepsake
import Testing

@testable import keepsake

@Suite("keepsake tool")
struct KeepsakeToolTests {
  let disk = InMemoryFileSystem()
  var tool: KeepsakeTool { KeepsakeTool(fileSystem: disk) }
  let folder = URL(fileURLWithPath: "/data")
  var file: URL { folder.appendingPathComponent("drafts.json") }

  @Test("inspect describes an envelope, its version and item count, and changes nothing")
  func inspectEnvelope() throws {
    let bytes = Data(#"{"version":3,"content":[{"id":1},{"id":2}]}"#.utf8)
    disk.setContents(bytes, at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.contains("format: envelope, version 3"))
    #expect(output.contains("items: 2"))
    #expect(output.contains("size: \(bytes.count) bytes"))
    #expect(output.contains("parses: yes"))
    #expect(disk.files[file.path] == bytes)
    #expect(disk.operations.allSatisfy { $0.operation == .read })
  }

  @Test("inspect recognizes a legacy file with no envelope")
  func inspectLegacy() throws {
    disk.setContents(Data(#"[{"id":"a","text":"x"}]"#.utf8), at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.contains("format: legacy, no envelope"))
    #expect(output.contains("items: 1"))
  }

  @Test("inspect reports a file that is not JSON, without failing")
  func inspectGarbage() throws {
    disk.setContents(Data([0xFF, 0x00, 0x7B]), at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.contains("parses: no"))
  }

  @Test("inspect reports an envelope whose version is not an integer")
  func inspectBadVersion() throws {
    disk.setContents(Data(#"{"version":"3","content":[]}"#.utf8), at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.contains("invalid version (string)"))
  }

  @Test(
    "Bad input is a clear error",
    arguments: [
      (["inspect", "/data/missing.json"], "no file at /data/missing.json"),
      (["inspect"], "inspect needs exactly one path"),
      (["frobnicate"], "unknown command 'frobnicate'"),
      (["restore", "/data/drafts.json"], "drafts.json is not a quarantine copy"),
    ])
  func badInput(_ arguments: [String], _ message: String) {
    #expect {
      try tool.run(arguments)
    } throws: { error in
      (error as? ToolError)?.message.hasPrefix(message) == true
    }
  }

  @Test("quarantined lists the quarantine copies of a folder")
  func listQuarantined() throws {
    disk.setContents(Data("ok".utf8), at: file)
    let copy = folder.appendingPathComponent("drafts.quarantined-20261129T210300Z.json")
    disk.setContents(Data("bad".utf8), at: copy)
    let output = try tool.run(["quarantined", folder.path])
    #expect(output == "drafts.quarantined-20261129T210300Z.json  (3 bytes, copy of drafts.json)")
    #expect(try tool.run(["quarantined", "/empty"]).hasPrefix("No quarantine copies"))
  }

  @Test("restore puts the copy back and keeps the replaced file as a quarantine copy")
  func restore() throws {
    let current = Data("current".utf8)
    let saved = Data("saved".utf8)
    disk.setContents(current, at: file)
    let copy = folder.appendingPathComponent("drafts.quarantined-20261129T210300Z.json")
    disk.setContents(saved, at: copy)
    let output = try tool.run(["restore", copy.path])
    #expect(output.hasPrefix("Restored /data/drafts.json"))
    #expect(disk.files[file.path] == saved)
    #expect(disk.files[copy.path] == nil)
    let kept = disk.files.filter { $0.key.contains(Quarantine.marker) }
    #expect(kept.count == 1)
    #expect(kept.first?.value == current)
  }

  @Test("Conflict copies are listed and restored like quarantine copies, under the file's lock")
  func conflictCopies() throws {
    disk.setContents(Data("ours".utf8), at: file)
    let copy = folder.appendingPathComponent("drafts.conflict-20261201T090000Z.json")
    disk.setContents(Data("theirs".utf8), at: copy)
    let listing = try tool.run(["quarantined", folder.path])
    #expect(listing == "drafts.conflict-20261201T090000Z.json  (6 bytes, copy of drafts.json)")
    let output = try tool.run(["restore", copy.path])
    #expect(output.hasPrefix("Restored /data/drafts.json"))
    #expect(disk.files[file.path] == Data("theirs".utf8))
    #expect(
      disk.files.filter { $0.key.contains(Quarantine.marker) }.first?.value == Data("ours".utf8))
    #expect(
      disk.operations.contains { $0.operation == .lock && $0.path == "/data/drafts.json.lock" })
    #expect(!disk.isLocked(file))
  }
}
