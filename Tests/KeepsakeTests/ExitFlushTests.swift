import Foundation
import KeepsakeStress
import KeepsakeTesting
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
    let folder = try TemporaryFolder()
    // The child makes the folder the key is in.
    let url = folder.file("new/numbers.json")
    #expect(try runChild(writing: url).exitCode == 0)
    let numbers = try JSONDecoder().decode([Int].self, from: Data(contentsOf: url))
    #expect(numbers == [1, 2, 3])
  }

  @Test("An unreadable file is not written at exit either")
  func protectedFileUntouchedAtExit() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("numbers.json")
    let damaged = Data("[1, 2,".utf8)
    try damaged.write(to: url)
    #expect(try runChild(writing: url).exitCode == 0)
    #expect(try Data(contentsOf: url) == damaged)
  }
}
