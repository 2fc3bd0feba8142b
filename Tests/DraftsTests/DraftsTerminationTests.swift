import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kill` and Ctrl-C on a `drafts` command do not lose its change: the command's transaction
/// ends, the change is written, and the program ends by the signal (data-safety rule "An
/// acknowledged save is on disk", DataSafety.md).
@Suite("drafts and termination signals")
struct DraftsTerminationTests {
  #if os(Linux)
    /// Whether process `pid` has the file at `path` open, as its file descriptors show.
    static func hasOpen(_ path: String, pid: Int32) -> Bool {
      let folder = "/proc/\(pid)/fd"
      let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      return descriptors.contains {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")) == path
      }
    }

    @Test(
      "A command signalled while it waits for the store's lock still adds its draft",
      .timeLimit(.minutes(5)), arguments: [SIGTERM, SIGINT])
    func signalledWhileWaiting(_ signal: Int32) throws {
      let home = try DraftsProcess.home()
      let store = home.file("drafts.json")
      // Another writer holds the store's lock, so the command is caught before it writes.
      let held = try LocalFileSystem().lockExclusively(store, timeout: .seconds(5))
      let lockFile = try #require(
        try FileManager.default.contentsOfDirectory(atPath: home.url.path).first {
          $0.hasSuffix(".lock")
        })
      let process = Process()
      process.executableURL = DraftsProcess.executable
      process.arguments = ["--store", store.path, "add", "written despite the signal"]
      process.environment = ["HOME": home.url.path, "PATH": "/usr/bin:/bin"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let pid = process.processIdentifier
      let lockPath = home.url.appendingPathComponent(lockFile).path
      // NB: another process's descriptors are not observable: polled, with a generous bound
      // that only turns a command that never gets there into a failure. The poll blocks its
      // thread: a sleep resumed by the concurrency pool can come back after the command's own
      // lock timeout when other tests keep the pool busy, and the command then gives up.
      var waiting = 0
      while !Self.hasOpen(lockPath, pid: pid) && waiting < 30_000 {
        usleep(1_000)
        waiting += 1
      }
      #expect(Self.hasOpen(lockPath, pid: pid), "the command waits for the lock")
      kill(pid, signal)
      held.release()
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
      #expect(process.terminationStatus == signal)
      let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: store))
      let drafts = (stored as? [String: Any])?["content"] as? [[String: Any]] ?? []
      #expect(drafts.map { $0["body"] as? String } == ["written despite the signal"])
    }
  #endif
}
