import Foundation
import KeepsakeStress
import Testing

/// A process that changes a file key and exits normally still writes the change (data-safety
/// rule "An acknowledged save is on disk", DataSafety.md), and never over a file it could not
/// read.
@Suite("Exit flush")
struct ExitFlushTests {
  private func runChild(writing url: URL) throws -> ChildProcess.Termination {
    let child = try ChildProcess(
      executable: stressExecutable, arguments: ["exit-flush", url.path], silencingErrors: true)
    _ = child.readRemainingLines()
    return child.wait()
  }

  @Test("A pending coalesced save is written when the process exits")
  func pendingSaveWrittenAtExit() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-exit-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("numbers.json")
    #expect(try runChild(writing: url).exitCode == 0)
    let numbers = try JSONDecoder().decode([Int].self, from: Data(contentsOf: url))
    #expect(numbers == [1, 2, 3])
  }

  @Test("An unreadable file is not written at exit either")
  func protectedFileUntouchedAtExit() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-exit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("numbers.json")
    let damaged = Data("[1, 2,".utf8)
    try damaged.write(to: url)
    #expect(try runChild(writing: url).exitCode == 0)
    #expect(try Data(contentsOf: url) == damaged)
  }
}
