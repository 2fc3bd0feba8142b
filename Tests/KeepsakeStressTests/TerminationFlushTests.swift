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
    .timeLimit(.minutes(5)), arguments: [SIGTERM, SIGINT, SIGHUP])
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

  /// The signals `pid` catches and ignores, from `/proc` (Linux): bit `n - 1` is signal `n`.
  static func dispositions(of pid: pid_t) throws -> (caught: UInt64, ignored: UInt64) {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    func mask(_ field: String) -> UInt64 {
      let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
      let hex = line?.split(separator: "\t").last.map(String.init) ?? ""
      return UInt64(hex.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
    }
    return (mask("SigCgt"), mask("SigIgn"))
  }

  static func bit(_ signal: Int32) -> UInt64 { 1 << UInt64(signal - 1) }

  @Test(
    "Only signals at their default action are taken over: one ignored (nohup) stays ignored",
    .timeLimit(.minutes(5)),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")))
  func ignoredSignalIsLeftAlone() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("numbers.json")
    // NB: an ignored signal stays ignored across `exec`, as `nohup` relies on.
    let child: ChildProcess = try {
      let previous = signal(SIGHUP, SIG_IGN)
      defer { signal(SIGHUP, previous) }
      return try ChildProcess(executable: stressExecutable, arguments: ["termination", url.path])
    }()
    #expect(child.readLine() == "ready")
    let ignoring = try Self.dispositions(of: child.pid)
    #expect(ignoring.ignored & Self.bit(SIGHUP) != 0, "SIGHUP is still ignored")
    #expect(ignoring.caught & Self.bit(SIGHUP) == 0)
    #expect(ignoring.caught & Self.bit(SIGTERM) != 0, "SIGTERM, at its default, is taken over")
    child.send(SIGTERM)
    #expect(child.wait().signal == SIGTERM)

    let plain = try ChildProcess(
      executable: stressExecutable, arguments: ["termination", folder.file("other.json").path])
    #expect(plain.readLine() == "ready")
    #expect(try Self.dispositions(of: plain.pid).caught & Self.bit(SIGHUP) != 0)
    plain.send(SIGTERM)
    _ = plain.wait()
  }
}
