import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real `drafts` executable answers at once, with one line, when its store is a file it must
/// not read (DESIGN.md rule 8), and leaves the store as it is.
@Suite("drafts program with a bad store")
struct BadStoreTests {
  /// The `drafts` executable `swift build` puts beside the test bundle in `.build/debug`.
  static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("drafts")

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
    try #require(
      FileManager.default.isExecutableFile(atPath: Self.executable.path),
      "build the drafts product first (swift build --build-tests)")
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-bad-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("drafts.json").path
    try #require(store.make(at: path) == 0, "could not make \(store) at \(path)")
    let before = try Self.snapshot(path)

    let run = try Self.runDrafts(["--store", path] + command, home: folder)

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

  /// How a run of `drafts` ended.
  struct Run {
    var exitCode: Int32?
    var wasKilled: Bool
    var standardError: String
  }

  /// Runs `drafts` with a throwaway home, killing it when it has not ended within `seconds`.
  ///
  /// NB: the deadline turns a hang (what a FIFO used to cause) into a failure instead of a test
  /// run that never ends; it is generous because it is not a speed requirement.
  static func runDrafts(_ arguments: [String], home: URL, within seconds: Double = 10) throws
    -> Run
  {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    // Nothing of the developer's own: a store, defaults or data under the real home.
    process.environment = [
      "HOME": home.path, "XDG_DATA_HOME": home.path, "XDG_CONFIG_HOME": home.path,
      "PATH": "/usr/bin:/bin",
    ]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    var wasKilled = false
    if ended.wait(timeout: .now() + seconds) == .timedOut {
      wasKilled = true
      kill(process.processIdentifier, SIGKILL)
      ended.wait()
    }
    let text = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Run(
      exitCode: process.terminationReason == .exit ? process.terminationStatus : nil,
      wasKilled: wasKilled, standardError: text)
  }

  /// What is at `path`, without following a link: its inode, type, size and link destination.
  static func snapshot(_ path: String) throws -> [String] {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    return ["\(info.st_ino)", "\(info.st_mode)", "\(info.st_size)", destination ?? "-"]
  }
}
