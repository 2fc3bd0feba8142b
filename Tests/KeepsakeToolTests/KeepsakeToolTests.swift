import Foundation
import Testing

@_spi(Testing) @testable import Keepsake
@testable import KeepsakeTesting
@testable import keepsake

@Suite("keepsake tool")
struct KeepsakeToolTests {
  let disk = InMemoryFileSystem()
  var tool: KeepsakeTool {
    KeepsakeTool(context: .inMemory(name: "keepsake tool", fileSystem: disk))
  }
  let folder = URL(fileURLWithPath: "/data")
  var file: URL { folder.appendingPathComponent("drafts.json") }

  @Test("inspect describes an envelope, its version and item count, and changes nothing")
  func inspectEnvelope() throws {
    let bytes = Data(#"{"version":3,"content":[{"id":1},{"id":2}]}"#.utf8)
    disk.setContents(bytes, at: file)
    let output = try tool.run(["inspect", file.path]).text
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
    let output = try tool.run(["inspect", file.path]).text
    #expect(output.contains("format: legacy, no envelope"))
    #expect(output.contains("items: 1"))
  }

  @Test("inspect describes a file that is not JSON, and ends with the status that says so")
  func inspectGarbage() throws {
    disk.setContents(Data([0xFF, 0x00, 0x7B]), at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.text.contains("parses: no"))
    #expect(output.status == .notKeepsake)
  }

  @Test("inspect reports an envelope whose version is not an integer, with the status that says so")
  func inspectBadVersion() throws {
    disk.setContents(Data(#"{"version":"3","content":[]}"#.utf8), at: file)
    let output = try tool.run(["inspect", file.path])
    #expect(output.text.contains("invalid version (string)"))
    #expect(output.status == .notKeepsake)
  }

  @Test("inspect ends with status 0 only when it read a JSON file")
  func inspectStatus() throws {
    disk.setContents(Data(#"{"version":1,"content":[]}"#.utf8), at: file)
    #expect(try tool.run(["inspect", file.path]).status == .done)
  }

  @Test(
    "Each way a command can fail has its own status",
    arguments: [
      (["inspect", "/data/missing.json"], ToolStatus.notRead),
      (["quarantined", "/no/such/folder"], .notRead),
      (["restore", "/data/drafts.json"], .refused),
      (["restore"], .usage),
      (["frobnicate"], .usage),
    ])
  func statuses(_ arguments: [String], _ status: ToolStatus) {
    disk.setContents(Data("{}".utf8), at: file)
    #expect {
      try tool.run(arguments)
    } throws: { error in
      (error as? ToolError)?.status == status
    }
  }

  @Test("quarantined on a folder that is not there says so, rather than 'no copies'")
  func quarantinedMissingFolder() {
    #expect {
      try tool.run(["quarantined", "/no/such/folder"])
    } throws: { error in
      (error as? ToolError)?.message == "there is no folder at /no/such/folder"
    }
  }

  @Test("quarantined on a file names the folder to list instead")
  func quarantinedOnAFile() {
    disk.setContents(Data("{}".utf8), at: URL(fileURLWithPath: "/data/notes.json"))
    #expect {
      try tool.run(["quarantined", "/data/notes.json"])
    } throws: { error in
      (error as? ToolError)?.message
        == "/data/notes.json is not a folder; list the folder that holds it: keepsake "
        + "quarantined /data"
    }
  }

  @Test("A copy larger than apps read is refused with plain advice, and restored with --large")
  func restoreLarge() throws {
    var tool = self.tool
    tool.readLimit = 4
    disk.setContents(Data("ours".utf8), at: file)
    let copy = folder.appendingPathComponent("drafts.kept-20261201T090000Z.json")
    disk.setContents(Data("a larger file".utf8), at: copy)
    let before = disk.files

    #expect {
      try tool.run(["restore", copy.path])
    } throws: { error in
      guard let error = error as? ToolError else { return false }
      return error.status == .refused
        && error.message.contains("larger than apps read")
        && error.message.contains("keepsake restore --large \(copy.path)")
    }
    #expect(disk.files == before, "nothing was changed")
    #expect(!disk.operations.contains { $0.operation == .lock }, "no lock was taken")

    let output = try tool.run(["restore", "--large", copy.path])
    #expect(output.status == .done)
    #expect(disk.files[file.path] == Data("a larger file".utf8))
  }

  @Test(
    "Bad input is a clear error",
    arguments: [
      (["inspect", "/data/missing.json"], "no file at /data/missing.json"),
      (["inspect"], "inspect needs exactly one path"),
      (["frobnicate"], "unknown command 'frobnicate'"),
      (["restore", "/data/drafts.json"], "drafts.json is not a copy Keepsake made"),
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
    let output = try tool.run(["quarantined", folder.path]).text
    #expect(
      output
        == "drafts.quarantined-20261129T210300Z.json  (quarantined, 3 bytes, copy of drafts.json)")
    disk.setContents(Data("ok".utf8), at: URL(fileURLWithPath: "/empty/notes.json"))
    #expect(try tool.run(["quarantined", "/empty"]).text.hasPrefix("No quarantine copies"))
  }

  @Test("restore puts the copy back and keeps the replaced file as a kept copy, not as damage")
  func restore() throws {
    let current = Data("current".utf8)
    let saved = Data("saved".utf8)
    disk.setContents(current, at: file)
    let copy = folder.appendingPathComponent("drafts.quarantined-20261129T210300Z.json")
    disk.setContents(saved, at: copy)
    let output = try tool.run(["restore", copy.path]).text
    #expect(output.hasPrefix("Restored /data/drafts.json"))
    #expect(disk.files[file.path] == saved)
    #expect(disk.files[copy.path] == nil)
    #expect(!disk.files.keys.contains { $0.contains(Quarantine.marker) })
    let kept = disk.files.filter { $0.key.contains(Quarantine.keptMarker) }
    #expect(kept.count == 1)
    #expect(kept.first?.value == current)
    let name = try #require(kept.first.map { URL(fileURLWithPath: $0.key).lastPathComponent })
    #expect(output.hasSuffix("The file it replaced was kept as \(name)."))
    #expect(try tool.run(["quarantined", folder.path]).text.contains("\(name)  (kept, 7 bytes"))
  }

  /// The in-memory disk, where a program that ignores the lock puts `version` in place of the
  /// file right after the tool kept a copy of it.
  final class VersionLandsAfterCopy: FileSystem, @unchecked Sendable {
    let disk: InMemoryFileSystem
    let version: Data

    init(_ disk: InMemoryFileSystem, version: Data) {
      self.disk = disk
      self.version = version
    }

    func contents(of url: URL, maximumSize: Int) throws -> Data? {
      try disk.contents(of: url, maximumSize: maximumSize)
    }
    func writeAtomically(_ data: Data, to url: URL) throws {
      try disk.writeAtomically(data, to: url)
    }
    func replaceAtomically(
      _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
    ) throws -> FileIdentity? {
      try disk.replaceAtomically(data, at: url, expecting: expected, creatingFolder: creatingFolder)
    }
    func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
      defer { disk.setContents(version, at: source) }
      return try disk.copyItem(at: source, toNew: destination)
    }
    func removeItem(at url: URL) throws { try disk.removeItem(at: url) }
    func contentsOfDirectory(at url: URL) throws -> [String] {
      try disk.contentsOfDirectory(at: url)
    }
    func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
      disk.watch(url, onChange: onChange)
    }
    func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
      try disk.lockExclusively(url, timeout: timeout)
    }
    func identity(of url: URL) throws -> FileIdentity? { try disk.identity(of: url) }
  }

  @Test("A version put in while restore runs is never written over: the restore fails, saying so")
  func versionLandsDuringRestore() throws {
    disk.setContents(Data("current".utf8), at: file)
    let copy = folder.appendingPathComponent("drafts.quarantined-20261129T210300Z.json")
    disk.setContents(Data("saved".utf8), at: copy)
    let newer = Data("newer".utf8)
    let tool = KeepsakeTool(
      context: .inMemory(
        name: "keepsake tool", fileSystem: VersionLandsAfterCopy(disk, version: newer)))
    #expect {
      try tool.run(["restore", copy.path])
    } throws: { error in
      (error as? ToolError)?.message.contains("nothing was lost") == true
        && (error as? ToolError)?.status == .failed
    }
    #expect(disk.files[file.path] == newer, "the version that came in stays")
    #expect(disk.files[copy.path] == Data("saved".utf8), "the copy stays, to restore again")
  }

  @Test("A copy named by a path relative to the working folder is restored to its file")
  func relativeCopyPath() throws {
    // NB: a relative path is taken from the process's working folder, as a shell gives it.
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let file = here.appendingPathComponent("drafts.json")
    disk.setContents(Data("current".utf8), at: file)
    let name = "drafts.conflict-20261201T090000Z.json"
    disk.setContents(Data("theirs".utf8), at: here.appendingPathComponent(name))

    let output = try tool.run(["restore", name])

    #expect(output.status == .done, "\(output.text)")
    #expect(disk.files[file.standardizedFileURL.path] == Data("theirs".utf8))
  }

  @Test("Conflict copies are listed and restored like quarantine copies, under the file's lock")
  func conflictCopies() throws {
    disk.setContents(Data("ours".utf8), at: file)
    let copy = folder.appendingPathComponent("drafts.conflict-20261201T090000Z.json")
    disk.setContents(Data("theirs".utf8), at: copy)
    let listing = try tool.run(["quarantined", folder.path]).text
    #expect(
      listing == "drafts.conflict-20261201T090000Z.json  (conflict, 6 bytes, copy of drafts.json)")
    let output = try tool.run(["restore", copy.path]).text
    #expect(output.hasPrefix("Restored /data/drafts.json"))
    #expect(disk.files[file.path] == Data("theirs".utf8))
    #expect(
      disk.files.filter { $0.key.contains(Quarantine.keptMarker) }.first?.value
        == Data("ours".utf8))
    #expect(
      disk.operations.contains { $0.operation == .lock && $0.path == "/data/drafts.json.lock" })
    #expect(!disk.isLocked(file))
  }

  /// A file name of 250 bytes, whose copies' names are shortened to fit.
  static let longName = String(repeating: "d", count: 245) + ".json"

  @Test("A copy of a long name, shortened to fit, is listed and restored to its file")
  func shortenedCopy() throws {
    let file = folder.appendingPathComponent(Self.longName)
    disk.setContents(Data("current".utf8), at: file)
    let copy = Quarantine.url(for: file, marker: Quarantine.conflictMarker)
    #expect(copy.lastPathComponent.utf8.count < 255)
    #expect(!copy.lastPathComponent.hasPrefix(Self.longName.dropLast(5)), "it was shortened")
    disk.setContents(Data("theirs".utf8), at: copy)

    let listing = try tool.run(["quarantined", folder.path]).text
    #expect(listing.contains("(conflict, 6 bytes, copy of \(Self.longName))"), "\(listing)")
    let output = try tool.run(["restore", copy.path]).text
    #expect(output.hasPrefix("Restored \(file.path)"))
    #expect(disk.files[file.path] == Data("theirs".utf8))
  }

  @Test("A shortened copy whose file is gone is restored only to a file it matches")
  func shortenedCopyWithoutItsFile() throws {
    let file = folder.appendingPathComponent(Self.longName)
    let copy = Quarantine.url(for: file)
    disk.setContents(Data("saved".utf8), at: copy)

    #expect(throws: ToolError.self) { try tool.run(["restore", copy.path]) }
    #expect(throws: ToolError.self) {
      try tool.run(["restore", copy.path, folder.appendingPathComponent("other.json").path])
    }
    #expect(disk.files.count == 1, "nothing was changed")
    _ = try tool.run(["restore", copy.path, file.path])
    #expect(disk.files[file.path] == Data("saved".utf8))
  }

  /// The `keepsake` executable `swift build` puts beside the test bundle.
  static func executable() throws -> URL {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("keepsake")
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "build the keepsake product first (swift build --build-tests)")
    return executable
  }

  /// Runs the `keepsake` program on the real disk.
  static func run(_ arguments: String...) throws -> RawProcess.Ended {
    try RawProcess.run(
      executable().path, arguments: arguments.map { Array($0.utf8) }, environment: [])
  }

  @Test("On the real disk, restore keeps the file it replaces as a kept copy, listed as such")
  func restoreOnTheRealDisk() throws {
    let temporary = try TemporaryFolder()
    let file = temporary.file("drafts.json")
    try Data("current".utf8).write(to: file)
    let copy = temporary.file("drafts.conflict-20261201T090000Z.json")
    try Data("theirs".utf8).write(to: copy)

    let restored = try Self.run("restore", copy.path)
    #expect(restored.exitCode == 0, "\(restored.standardError)")
    #expect(try Data(contentsOf: file) == Data("theirs".utf8))
    let kept = try #require(temporary.names.first { $0.contains(Quarantine.keptMarker) })
    #expect(try Data(contentsOf: temporary.file(kept)) == Data("current".utf8))
    #expect(restored.standardOutput.hasSuffix("The file it replaced was kept as \(kept).\n"))

    let listed = try Self.run("quarantined", temporary.url.path)
    #expect(listed.standardOutput == "\(kept)  (kept, 7 bytes, copy of drafts.json)\n")
  }

  @Test("The keepsake program's exit status says what happened, and a refusal leaves no lock file")
  func exitStatuses() throws {
    let temporary = try TemporaryFolder()
    let garbage = temporary.file("garbage.json")
    try Data([0xFF, 0x00]).write(to: garbage)
    let good = temporary.file("good.json")
    try Data(#"{"version":2,"content":[1]}"#.utf8).write(to: good)

    #expect(try Self.run("inspect", good.path).exitCode == 0)
    let notJSON = try Self.run("inspect", garbage.path)
    #expect(notJSON.exitCode == 3)
    #expect(notJSON.standardOutput.contains("parses: no"))
    #expect(try Self.run("inspect", temporary.file("missing.json").path).exitCode == 2)
    let missingFolder = try Self.run("quarantined", temporary.file("nowhere").path)
    #expect(missingFolder.exitCode == 2)
    #expect(missingFolder.standardError.contains("there is no folder at"))
    #expect(try Self.run("restore", good.path).exitCode == 4)
    #expect(try Self.run("frobnicate").exitCode == 1)
    #expect(temporary.names.sorted() == ["garbage.json", "good.json"], "no lock file, nothing new")
  }

  @Test("The keepsake program refuses an argument that is not valid UTF-8 with one line")
  func argumentNotUTF8() throws {
    let executable = try Self.executable()
    let temporary = try TemporaryFolder()
    let path = Array(temporary.url.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".json".utf8)

    let ended = try RawProcess.run(
      executable.path, arguments: [Array("inspect".utf8), path], environment: [])

    #expect(ended.exitCode == 1)
    #expect(
      ended.standardError
        == "keepsake: argument 2 (\(temporary.url.path)/caf\\xE9.json) is not valid UTF-8, so it "
        + "cannot be taken exactly and nothing was done; if it names a file or folder, rename "
        + "that to a UTF-8 name (for example with convmv)\n")
    #expect(temporary.names.isEmpty)
  }
}
