import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

/// Locks are held only inside a span of background time (iOS kills an app suspended while it
/// holds a file lock in an App Group container); the live spans are Apple's, the rule is tested
/// here with a recording one.
@Suite("Background time for lock holds")
struct BackgroundTimeTests {
  /// Records spans: how many began, and how many are open now.
  final class Recorder: Sendable {
    let state = Mutex((begun: 0, open: 0, reasons: [String]()))

    var time: BackgroundTime {
      BackgroundTime { reason in
        self.state.withLock {
          $0.begun += 1
          $0.open += 1
          $0.reasons.append(reason)
        }
        return BackgroundTime.Span { self.state.withLock { $0.open -= 1 } }
      }
    }

    var begun: Int { state.withLock { $0.begun } }
    var open: Int { state.withLock { $0.open } }
  }

  struct Refused: Error {}

  @Test("A lock is held inside a span, which ends when the lock is released or dropped")
  func lockSpan() throws {
    let folder = try TemporaryFolder()
    let recorder = Recorder()
    let disk = LocalFileSystem(calls: SystemCalls.live.asking(recorder.time))
    let lock = try disk.lockExclusively(folder.file("notes.json"), timeout: .seconds(1))
    #expect(recorder.open == 1)
    #expect(recorder.state.withLock { $0.reasons } == ["Keepsake: writing notes.json"])
    lock.release()
    #expect(recorder.open == 0)
    do {
      _ = try disk.lockExclusively(folder.file("notes.json"), timeout: .seconds(1))
    }
    #expect(recorder.begun == 2)
    #expect(recorder.open == 0, "a lock dropped without release ends its span too")
  }

  @Test("A lock that cannot be taken asks for no time")
  func refusedLock() throws {
    let folder = try TemporaryFolder()
    let recorder = Recorder()
    let disk = LocalFileSystem(calls: SystemCalls.live.asking(recorder.time))
    let held = try LocalFileSystem().lockExclusively(folder.file("a.json"), timeout: .seconds(1))
    #expect(throws: FileSystemError.self) {
      _ = try disk.lockExclusively(folder.file("a.json"), timeout: .milliseconds(20))
    }
    held.release()
    #expect(recorder.begun == 0)
  }

  @Test("A save and a transaction that throws each end their span")
  func savesAndTransactions() async throws {
    let folder = try TemporaryFolder()
    let recorder = Recorder()
    let context = StorageContext(
      name: "background time", fileSystem: LocalFileSystem(calls: .live.asking(recorder.time)),
      isIsolated: true
    ) { _ in InMemoryPreferences() }
    let url = folder.file("count.json")
    try await StorageContext.withValue(context) {
      @Shared(.fileStorage(url)) var count = 0
      $count.withLock { $0 = 1 }
      try await $count.save()
      #expect(recorder.begun >= 1)
      #expect(recorder.open == 0)
      let before = recorder.begun
      await #expect(throws: Refused.self) {
        try await $count.withTransaction { throw Refused() }
      }
      #expect(recorder.begun > before, "the transaction held the lock inside a span")
      #expect(recorder.open == 0, "and its span ended when it threw")
    }
  }
}
