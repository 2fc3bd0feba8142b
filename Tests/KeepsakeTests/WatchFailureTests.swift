import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the folder watcher does when the system refuses a watch, has no inotify instance, or
/// drops events (`WatchFailure.swift`).
@Suite("Watch failures")
struct WatchFailureTests {
  @Test("A watch the system refuses still gives a subscription, and says why")
  func refusedWatchIsReported() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    let watcher = FolderWatcher(faultHook: { operation, _ in
      operation == .addWatch ? ENOSPC : nil
    })
    let subscription = watcher.subscribe(file) {}

    let expected = WatchFailure(
      file: file.path, folder: watchedPath(folder.url), operation: .addWatch, code: ENOSPC)
    #expect(watcher.failures == [expected])
    #expect(
      expected.description
        == "Cannot watch \(file.path) for changes by other processes: watching the folder "
        + "\(watchedPath(folder.url)) would pass the per-user limit of inotify watches (ENOSPC; see "
        + "fs.inotify.max_user_watches).")
    #expect(watcher.subscriberCount == 1)
    #expect(watcher.watchedFolderCount == 0)

    subscription.cancel()
    #expect(watcher.failures.isEmpty)
  }

  @Test("A refused watch is retried once another watch is released")
  func refusedWatchIsRetried() async throws {
    let root = try TemporaryFolder()
    let open = root.url.appendingPathComponent("open", isDirectory: true)
    let refused = root.url.appendingPathComponent("refused", isDirectory: true)
    for folder in [open, refused] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    let refusing = Mutex(true)
    let watcher = FolderWatcher(faultHook: { _, folder in
      refusing.withLock { $0 } && folder == watchedPath(refused) ? ENOSPC : nil
    })
    let first = watcher.subscribe(open.appendingPathComponent("items.json")) {}
    let calls = Calls()
    let second = watcher.subscribe(refused.appendingPathComponent("items.json")) {
      calls.record()
    }
    #expect(watcher.failures.map(\.folder) == [watchedPath(refused)])

    refusing.withLock { $0 = false }
    first.cancel()
    #expect(watcher.failures.isEmpty)
    #expect(watcher.watchedFolders == [watchedPath(refused)])
    // Blind until now, so told once.
    #expect(await afterKernelEvents { calls.count == 1 })

    try replaceAtomically(refused.appendingPathComponent("items.json"), with: "[1]")
    #expect(await afterKernelEvents { calls.count == 2 })
    withExtendedLifetime(second) {}
  }

  #if os(Linux)
    @Test("Without an inotify instance subscriptions say so, and recover once one is made")
    func missingInstanceIsReportedAndRetried() async throws {
      let root = try TemporaryFolder()
      let refusing = Mutex(true)
      let watcher = FolderWatcher(faultHook: { operation, _ in
        operation == .createInstance && refusing.withLock { $0 } ? EMFILE : nil
      })
      let calls = Calls()
      let first = watcher.subscribe(root.file("first.json")) { calls.record() }
      let file = root.file("first.json").path
      #expect(
        watcher.failures == [
          WatchFailure(file: file, folder: "", operation: .createInstance, code: EMFILE)
        ])
      #expect(watcher.failures.first?.description.contains("max_user_instances") == true)

      refusing.withLock { $0 = false }
      let second = watcher.subscribe(root.file("second.json")) {}
      #expect(watcher.failures.isEmpty)
      #expect(watcher.watchedFolders == [watchedPath(root.url)])
      #expect(await afterKernelEvents { calls.count == 1 })
      withExtendedLifetime([first, second]) {}
    }

    @Test("When the system drops events, every subscriber is told")
    func overflowTellsEveryone() async throws {
      let root = try TemporaryFolder()
      let busy = root.url.appendingPathComponent("busy", isDirectory: true)
      let quiet = root.url.appendingPathComponent("quiet", isDirectory: true)
      for folder in [busy, quiet] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      let watcher = FolderWatcher()
      // The busy subscriber's first call holds the watcher's queue, so the kernel's event queue
      // fills up behind it.
      let gate = DispatchSemaphore(value: 0)
      let busyCalls = Calls()
      let quietCalls = Calls()
      let subscriptions = [
        watcher.subscribe(busy.appendingPathComponent("items.json")) {
          if busyCalls.record() == 1 { gate.wait() }
        },
        watcher.subscribe(quiet.appendingPathComponent("items.json")) { quietCalls.record() },
      ]
      try replaceAtomically(busy.appendingPathComponent("items.json"), with: "[1]")
      #expect(await afterKernelEvents { busyCalls.count == 1 })

      // Each pair of renames queues four events; twice the queue's size is sure to overflow it.
      let limit =
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
      let one = busy.appendingPathComponent("one").path
      let other = busy.appendingPathComponent("other").path
      try Data().write(to: URL(fileURLWithPath: one))
      for _ in 0..<(limit / 2) {
        rename(one, other)
        rename(other, one)
      }
      gate.signal()

      // Nothing happened in the quiet folder: only the overflow can have told its subscriber.
      #expect(await afterKernelEvents { quietCalls.count > 0 })
      withExtendedLifetime(subscriptions) {}
    }
  #endif
}
