import DraftsFeature
import Foundation
import Keepsake
import KeepsakeTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real `drafts` program with the paths people give it: links, long names, names that are
/// not UTF-8; and what it says when a change cannot be saved.
@Suite("drafts program with links, names and failed saves")
struct DraftsPathTests {
  /// The drafts stored at `url`.
  static func drafts(at url: URL) throws -> [Draft] {
    try DraftsFormat.decode(try Data(contentsOf: url))
  }

  @Test(
    "A dangling link as the store gets its target created, and stays a link",
    arguments: ["target.json", "sub/target.json"])
  func danglingLink(_ destination: String) throws {
    let home = try DraftsProcess.home()
    let link = home.file("drafts.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: destination)

    let run = try DraftsProcess.run(
      ["--store", link.path, "add", "through the link"], home: home.url)

    #expect(run.exitCode == 0, "\(run.standardError)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == destination)
    #expect(try Self.drafts(at: home.file(destination)).map(\.body) == ["through the link"])
    let lock = home.file(destination + ".lock")
    #expect(FileManager.default.fileExists(atPath: lock.path), "the lock is beside the target")
    #expect(!home.names.contains("drafts.json.lock"))
  }

  @Test("A store whose name is 255 bytes long takes drafts like any other")
  func longName() throws {
    let home = try DraftsProcess.home()
    let store = home.file(String(repeating: "d", count: 250) + ".json")
    for text in ["first", "second"] {
      let run = try DraftsProcess.run(["--store", store.path, "add", text], home: home.url)
      #expect(run.exitCode == 0, "\(run.standardError)")
    }
    #expect(try Self.drafts(at: store).map(\.body) == ["first", "second"])
    #expect(home.names.allSatisfy { $0.utf8.count <= 255 && !$0.contains("keepsake-tmp") })
  }

  /// Store paths that are not valid UTF-8: an existing store, and a store in such a folder.
  enum BadBytes: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case existingStore
    case storeInFolder

    var testDescription: String { rawValue }

    /// Makes what is on disk; returns the store's path.
    func make(in folder: URL) throws -> [UInt8] {
      switch self {
      case .existingStore:
        let path = RawNames.path(folder, Array("caf".utf8) + [0xE9] + Array(".json".utf8))
        let draft = Draft(id: UUID(), body: "written by a Latin-1 system")
        try RawNames.create(try DraftsFormat.encode([draft]), at: path)
        return path
      case .storeInFolder:
        let folderPath = RawNames.path(folder, Array("dir".utf8) + [0xFF])
        try RawNames.makeFolder(folderPath)
        return folderPath + Array("/drafts.json".utf8)
      }
    }
  }

  @Test(
    "A store path that is not valid UTF-8 is refused with one line, and nothing is made",
    arguments: BadBytes.allCases, [["list"], ["add", "hello"]])
  func notUTF8(_ bad: BadBytes, _ command: [String]) throws {
    let home = try DraftsProcess.home()
    let store = try bad.make(in: home.url)
    let before = RawNames.names(in: Array(home.url.path.utf8))
    let storeBefore = RawNames.contents(of: store)

    let run = try DraftsProcess.run(
      bytes: [Array("--store".utf8), store] + command.map { Array($0.utf8) },
      environment: [Array("HOME=\(home.url.path)".utf8)])

    #expect(run.exitCode == 1)
    let escaped = PathBytes.escaped(store)
    #expect(
      run.standardError
        == "drafts: argument 2 (\(escaped)) is not valid UTF-8, so it cannot be taken exactly and "
        + "nothing was done; if it names a file or folder, rename that to a UTF-8 name (for "
        + "example with convmv)\n")
    #expect(RawNames.names(in: Array(home.url.path.utf8)) == before, "no look-alike was made")
    #expect(RawNames.contents(of: store) == storeBefore)
  }

  @Test("A home folder that is not valid UTF-8 is refused too, when it names the store")
  func homeNotUTF8() throws {
    let home = try DraftsProcess.home()
    let badHome = RawNames.path(home.url, Array("home".utf8) + [0xE9])
    try RawNames.makeFolder(badHome)

    let run = try DraftsProcess.run(
      bytes: [Array("add".utf8), Array("hello".utf8)],
      environment: [Array("HOME=".utf8) + badHome])

    #expect(run.exitCode == 1)
    #expect(
      run.standardError.hasPrefix("drafts: $HOME (\(PathBytes.escaped(badHome))) is not valid"))
    #expect(RawNames.names(in: badHome).isEmpty)
  }

  @Test("A folder where the lock goes fails the command, saying the change was not saved and why")
  func lockFolder() throws {
    let home = try DraftsProcess.home()
    let store = home.file("drafts.json")
    #expect(
      try DraftsProcess.run(["--store", store.path, "add", "kept"], home: home.url).exitCode == 0)
    let before = try Data(contentsOf: store)
    try FileManager.default.removeItem(at: home.file("drafts.json.lock"))
    try FileManager.default.createDirectory(
      at: home.file("drafts.json.lock"), withIntermediateDirectories: false)

    let run = try DraftsProcess.run(["--store", store.path, "add", "lost?"], home: home.url)

    #expect(run.exitCode == 1)
    #expect(
      run.standardError
        == "drafts: the change was not saved: Could not lock \(store.path).lock: Is a directory; "
        + "that is a folder, where Keepsake keeps the lock of the file beside it, so nothing was "
        + "written: move the folder away. The drafts in \(store.path) were not changed.\n")
    #expect(try Data(contentsOf: store) == before)
  }

  @Test("A write that fails says the change was not saved, and the store is as it was")
  func failedWrite() throws {
    let home = try DraftsProcess.home()
    let store = home.file("drafts.json")
    #expect(
      try DraftsProcess.run(["--store", store.path, "add", "kept"], home: home.url).exitCode == 0)
    let before = try Data(contentsOf: store)

    // No file may grow past 0 bytes: the temporary file's first write fails (EFBIG).
    let run = try DraftsProcess.run(
      ["--store", store.path, "add", "too big"], home: home.url,
      through: "ulimit -f 0; trap '' XFSZ")

    #expect(run.exitCode == 1)
    #expect(
      run.standardError
        == "drafts: the change was not saved: Could not write \(store.path): File too large; the "
        + "file is as it was: a limit on file sizes was reached (this process's ulimit -f, or the "
        + "file system's). The drafts in \(store.path) were not changed.\n")
    #expect(!run.standardError.contains("saved again"), "a finished program saves nothing later")
    #expect(try Data(contentsOf: store) == before)
    #expect(home.names == ["drafts.json", "drafts.json.lock"])
  }

  @Test(
    "An immutable store fails the command, saying the change was not saved",
    .enabled(if: Immutable.isAvailable, "chattr +i is not allowed here"))
  func immutableStore() throws {
    let home = try DraftsProcess.home()
    let store = home.file("drafts.json")
    #expect(
      try DraftsProcess.run(["--store", store.path, "add", "kept"], home: home.url).exitCode == 0)
    let before = try Data(contentsOf: store)
    try Immutable.set(store, true)
    defer { try? Immutable.set(store, false) }

    let run = try DraftsProcess.run(["--store", store.path, "add", "refused"], home: home.url)

    #expect(run.exitCode == 1)
    #expect(
      run.standardError
        == "drafts: the change was not saved: Could not rename into place \(store.path): "
        + "permission denied; the file is as it was: allow this user to write the file and its "
        + "folder (a read-only file system or an immutable file, see lsattr, refuses it too). The "
        + "drafts in \(store.path) were not changed.\n")
    try Immutable.set(store, false)
    #expect(try Data(contentsOf: store) == before)
  }
}

/// The immutable attribute (`chattr +i`), where the file system and the user's rights allow it.
enum Immutable {
  static let isAvailable: Bool = {
    guard let folder = try? TemporaryFolder() else { return false }
    let probe = folder.file("probe")
    guard (try? Data().write(to: probe)) != nil, (try? set(probe, true)) != nil else {
      return false
    }
    try? set(probe, false)
    return true
  }()

  static func set(_ url: URL, _ on: Bool) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [on ? "+i" : "-i", url.path]
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteNoPermission) }
  }
}
