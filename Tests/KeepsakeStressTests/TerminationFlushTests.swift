import Foundation
import KeepsakeStress
import KeepsakeTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program that asked for it (``Keepsake/StorageContext/flushOnTermination()``) writes its
/// pending changes when it is asked to stop, and ends as the signal would have ended it
/// (data-safety rule "An acknowledged save is on disk", DataSafety.md).
@Suite("Termination flush")
struct TerminationFlushTests {
  @Test(
    "A pending change is written when the process is asked to stop, and it ends by the signal",
    .timeLimit(.minutes(1)), arguments: [SIGTERM, SIGINT])
  func pendingChangeWrittenOnSignal(_ signal: Int32) throws {
    let folder = try TemporaryFolder()
    let url = folder.file("numbers.json")
    let child = try ChildProcess(
      executable: stressExecutable, arguments: ["termination", url.path])
    #expect(child.readLine() == "ready")
    child.send(signal)
    let ending = child.wait()
    #expect(ending.signal == signal, "the parent sees the signal's conventional status")
    let numbers = try JSONDecoder().decode([Int].self, from: Data(contentsOf: url))
    #expect(numbers == [1, 2, 3])
  }
}
