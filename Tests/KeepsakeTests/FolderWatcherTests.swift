import Foundation
import Keepsake
import KeepsakeTesting
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Folder watcher")
struct FolderWatcherTests {
  @Test("Three hundred files in three hundred folders all see an outside write")
  func threeHundredFolders() async throws {
    let root = try TemporaryFolder()
    let files = try (0..<300).map { index in
      let folder = root.url.appendingPathComponent("folder-\(index)", isDirectory: true)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return folder.appendingPathComponent("items.json")
    }
    let calls = files.map { _ in Calls() }
    // Through the entry point keys use, so through the process's one watcher.
    let subscriptions = files.indices.map { index in
      LocalFileSystem().watch(files[index]) { calls[index].record() }
    }
    for file in files { try replaceAtomically(file, with: "[1]") }

    let allSeen = await afterKernelEvents { calls.allSatisfy { $0.count > 0 } }
    let blind = calls.indices.filter { calls[$0].count == 0 }
    #expect(
      allSeen, "\(blind.count) of 300 files never saw their write, from #\(blind.first ?? -1)")
    withExtendedLifetime(subscriptions) {}
  }

  @Test("A file replaced by another process is seen")
  func writeByAnotherProcess() async throws {
    let folder = try TemporaryFolder()
    let calls = Calls()
    let subscription = LocalFileSystem().watch(folder.file("file")) { calls.record() }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "echo x > tmp && mv tmp file"]
    process.currentDirectoryURL = folder.url
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)

    #expect(await afterKernelEvents { calls.count > 0 })
    withExtendedLifetime(subscription) {}
  }

  @Test("A cancelled subscription releases its folder's watch and is not called again")
  func cancelReleasesTheWatch() async throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    let watcher = FolderWatcher()
    #expect(watcher.watchedFolderCount == 0)
    #expect(watcher.subscriberCount == 0)

    let calls = Calls()
    let subscription = watcher.subscribe(file) { calls.record() }
    #expect(watcher.watchedFolders == [path(folder.url)])
    #expect(watcher.subscriberCount == 1)
    try replaceAtomically(file, with: "[1]")
    #expect(await afterKernelEvents { calls.count == 1 })

    subscription.cancel()
    #expect(watcher.watchedFolderCount == 0)
    #expect(watcher.subscriberCount == 0)

    // A second subscriber of the same file is told about the next write; the events of one
    // watcher are handled in order, so by then the cancelled one would have been called too.
    let witness = Calls()
    let second = watcher.subscribe(file) { witness.record() }
    try replaceAtomically(file, with: "[2]")
    #expect(await afterKernelEvents { witness.count > 0 })
    #expect(calls.count == 1)
    withExtendedLifetime(second) {}
  }

  @Test("Two files in one folder share one watch, and each is told only about its own")
  func twoFilesOneFolder() async throws {
    let folder = try TemporaryFolder()
    let watcher = FolderWatcher()
    let first = Calls()
    let second = Calls()
    let subscriptions = [
      watcher.subscribe(folder.file("first.json")) { first.record() },
      watcher.subscribe(folder.file("second.json")) { second.record() },
    ]
    #expect(watcher.watchedFolderCount == 1)
    #expect(watcher.subscriberCount == 2)

    try replaceAtomically(folder.file("first.json"), with: "[1]")
    #expect(await afterKernelEvents { first.count > 0 })
    #expect(second.count == 0)
    let firstCalls = first.count

    try replaceAtomically(folder.file("second.json"), with: "[2]")
    #expect(await afterKernelEvents { second.count > 0 })
    #expect(first.count == firstCalls)
    withExtendedLifetime(subscriptions) {}
  }

  @Test("A folder created after subscribing, parents and all, is watched from then on")
  func folderCreatedLater() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b/c", isDirectory: true)
    let file = folder.appendingPathComponent("items.json")
    let watcher = FolderWatcher()
    let calls = Calls()
    let subscription = watcher.subscribe(file) { calls.record() }
    #expect(watcher.watchedFolders == [path(root.url)])
    #expect(watcher.failures.isEmpty)

    // All three folders at once, as `mkdir -p` makes them.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents { calls.count == 1 && watcher.watchedFolders == [path(folder)] })

    try replaceAtomically(file, with: "[1]")
    #expect(await afterKernelEvents { calls.count == 2 })
    withExtendedLifetime(subscription) {}
  }

  @Test("A file written before its folder's watch existed is reported once it does")
  func fileWrittenBeforeTheWatch() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b", isDirectory: true)
    let file = folder.appendingPathComponent("items.json")
    let watcher = FolderWatcher()
    // Another subscriber's call holds the watcher's queue while the folders and the file are
    // made, so the walk down to the new folder surely comes after the write.
    let gate = DispatchSemaphore(value: 0)
    let blocker = Calls()
    let calls = Calls()
    let subscriptions = [
      watcher.subscribe(root.file("blocker")) { if blocker.record() == 1 { gate.wait() } },
      watcher.subscribe(file) { calls.record() },
    ]
    try replaceAtomically(root.file("blocker"), with: "")
    #expect(await afterKernelEvents { blocker.count == 1 })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try replaceAtomically(file, with: "[1]")
    gate.signal()
    #expect(await afterKernelEvents { calls.count > 0 })
    #expect(watcher.watchedFolders == [path(root.url), path(folder)])
    withExtendedLifetime(subscriptions) {}
  }

  @Test("A folder made while its parent's watch is being added is not missed")
  func folderMadeDuringTheWatch() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b", isDirectory: true)
    // Made just before the system call that watches the parent: the parent's watch never
    // reports it, only the check after the watch was added can find it.
    let watcher = FolderWatcher(faultHook: { _, watched in
      if watched == path(root.url) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      return nil
    })
    let calls = Calls()
    let subscription = watcher.subscribe(folder.appendingPathComponent("items.json")) {
      calls.record()
    }
    #expect(watcher.watchedFolders == [path(folder)])
    #expect(await afterKernelEvents { calls.count == 1 })
    withExtendedLifetime(subscription) {}
  }

  @Test("A watched folder removed and created again is watched again")
  func folderRemovedAndRecreated() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("sub", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("items.json")
    let watcher = FolderWatcher()
    let calls = Calls()
    let subscription = watcher.subscribe(file) { calls.record() }
    #expect(watcher.watchedFolders == [path(folder)])

    // The subscriber is told its file is gone with its folder, and waits in the parent.
    #expect(rmdir(folder.path) == 0)
    #expect(
      await afterKernelEvents { calls.count == 1 && watcher.watchedFolders == [path(root.url)] })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents { calls.count == 2 && watcher.watchedFolders == [path(folder)] })

    try replaceAtomically(file, with: "[1]")
    #expect(await afterKernelEvents { calls.count == 3 })
    withExtendedLifetime(subscription) {}
  }

  @Test("A watched folder renamed away is waited for at its old path")
  func folderRenamedAway() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("sub", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let watcher = FolderWatcher()
    let calls = Calls()
    let subscription = watcher.subscribe(folder.appendingPathComponent("items.json")) {
      calls.record()
    }

    // The file left with its folder, though nothing was deleted.
    #expect(rename(folder.path, root.file("moved").path) == 0)
    #expect(
      await afterKernelEvents { calls.count == 1 && watcher.watchedFolders == [path(root.url)] })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents { calls.count == 2 && watcher.watchedFolders == [path(folder)] })
    withExtendedLifetime(subscription) {}
  }

  @Test("A watch the system refuses still gives a subscription, and says why")
  func refusedWatchIsReported() throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    let watcher = FolderWatcher(faultHook: { operation, _ in
      operation == .addWatch ? ENOSPC : nil
    })
    let subscription = watcher.subscribe(file) {}

    let expected = WatchFailure(
      file: file.path, folder: path(folder.url), operation: .addWatch, code: ENOSPC)
    #expect(watcher.failures == [expected])
    #expect(
      expected.description
        == "Cannot watch \(file.path) for changes by other processes: watching the folder "
        + "\(path(folder.url)) would pass the per-user limit of inotify watches (ENOSPC; see "
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
      refusing.withLock { $0 } && folder == path(refused) ? ENOSPC : nil
    })
    let first = watcher.subscribe(open.appendingPathComponent("items.json")) {}
    let calls = Calls()
    let second = watcher.subscribe(refused.appendingPathComponent("items.json")) {
      calls.record()
    }
    #expect(watcher.failures.map(\.folder) == [path(refused)])

    refusing.withLock { $0 = false }
    first.cancel()
    #expect(watcher.failures.isEmpty)
    #expect(watcher.watchedFolders == [path(refused)])
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
      #expect(watcher.watchedFolders == [path(root.url)])
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

/// Counts a subscriber's calls.
private final class Calls: Sendable {
  private let value = Mutex(0)

  /// Counts one call; returns the count so far.
  @discardableResult
  func record() -> Int {
    value.withLock {
      $0 += 1
      return $0
    }
  }

  var count: Int { value.withLock { $0 } }
}

/// Replaces a file the way another process's atomic save does: a temporary file in the same
/// folder, renamed over the target.
private func replaceAtomically(_ url: URL, with text: String) throws {
  let temporary = url.deletingLastPathComponent().appendingPathComponent(
    ".\(url.lastPathComponent).tmp")
  try Data(text.utf8).write(to: temporary)
  guard rename(temporary.path, url.path) == 0 else {
    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
  }
}

/// A folder's path as the watcher names it: standardized, without a trailing slash.
private func path(_ folder: URL) -> String {
  let path = folder.standardizedFileURL.path
  return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
}
