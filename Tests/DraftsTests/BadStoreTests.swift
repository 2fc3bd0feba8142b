import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real `drafts` executable answers at once, with one line, when its store is a file it must
/// not read (data-safety rule "Bad files get a clear error at once" (DataSafety.md)), and leaves
/// the store as it is.
@Suite("drafts program with a bad store")
struct BadStoreTests {
  enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case fifo
    case deviceLink

    var testDescription: String { rawValue }

    var kind: String { self == .fifo ? "a FIFO" : "a character device" }

    func make(at path: String) -> Int32 {
      self == .fifo ? mkfifo(path, 0o600) : symlink("/dev/zero", path)
    }
  }

  @Test(
    "A FIFO or a device as the store fails the command at once with one line on stderr",
    arguments: Store.allCases, [["list"], ["add", "hello"]])
  func answersAtOnce(_ store: Store, _ command: [String]) throws {
    let temporary = try DraftsProcess.home()
    let folder = temporary.url
    let path = folder.appendingPathComponent("drafts.json").path
    try #require(store.make(at: path) == 0, "could not make \(store) at \(path)")
    let before = try Self.snapshot(path)

    let run = try DraftsProcess.run(["--store", path] + command, home: folder)

    #expect(!run.wasKilled, "drafts \(command) did not return; killed after the deadline")
    #expect(run.exitCode == 1)
    #expect(
      run.standardError
        == "drafts: cannot read the drafts in \(path): Could not read \(path): it is "
        + "\(store.kind), not a regular file, so it was not read and was left untouched; remove "
        + "it or point the key at a file. Nothing was changed.\n")
    #expect(try Self.snapshot(path) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["drafts.json"])
  }

  /// What is at `path`, without following a link: its inode, type, size and link destination.
  static func snapshot(_ path: String) throws -> [String] {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    return ["\(info.st_ino)", "\(info.st_mode)", "\(info.st_size)", destination ?? "-"]
  }
}
