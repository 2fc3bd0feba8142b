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

/// Subscriptions to the process's one folder watcher: who is told, about what, and until when.
///
/// How watches follow folders that appear, vanish or move is in `FolderWatcherRoutingTests`;
/// what happens when the system refuses or drops watches is in `WatchFailureTests`.
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
    #expect(watcher.watchedFolders == [watchedPath(folder.url)])
    #expect(watcher.subscriberCount == 1)
    try replaceAtomically(file, with: "[1]")
    // NB: at least once: a replace's events may reach the watcher in one read or, on a loaded
    // machine, in several, and each read that concerns the file tells its subscribers.
    #expect(await afterKernelEvents { calls.count >= 1 })

    subscription.cancel()
    let callsBeforeCancel = calls.count
    #expect(watcher.watchedFolderCount == 0)
    #expect(watcher.subscriberCount == 0)

    // A second subscriber of the same file is told about the next write; the events of one
    // watcher are handled in order, so by then the cancelled one would have been called too.
    let witness = Calls()
    let second = watcher.subscribe(file) { witness.record() }
    try replaceAtomically(file, with: "[2]")
    #expect(await afterKernelEvents { witness.count > 0 })
    #expect(calls.count == callsBeforeCancel)
    withExtendedLifetime(second) {}
  }

  #if os(Linux)
    @Test("A watcher that goes away ends its reader thread and closes its inotify instance")
    func goneWatcherStopsItsReader() async throws {
      let folder = try TemporaryFolder()
      let file = folder.file("items.json")
      var watcher: FolderWatcher? = FolderWatcher()
      let calls = Calls()
      var subscription = watcher?.subscribe(file) { calls.record() }
      try replaceAtomically(file, with: "[1]")
      #expect(await afterKernelEvents { calls.count > 0 })
      let stopped = try #require(watcher?.readerStopped)
      #expect(!stopped())
      subscription?.cancel()
      subscription = nil
      watcher = nil
      #expect(await afterKernelEvents { stopped() })
    }
  #endif

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

  @Test("A file's watch with its folder's copies tells each side of its own names, in one route")
  func fileAndEntriesInOneRoute() async throws {
    let folder = try TemporaryFolder()
    let watcher = FolderWatcher()
    let file = Calls()
    let copies = Calls()
    var subscription: StorageSubscription? = watcher.subscribe(
      path: folder.file("notes.json").path, entriesMatching: { $0.hasPrefix("notes.copy") },
      onEntries: { copies.record() }, onChange: { file.record() })
    #expect(watcher.subscriberCount == 1)
    #expect(watcher.watchedFolderCount == 1)

    try replaceAtomically(folder.file("notes.json"), with: "[1]")
    #expect(await afterKernelEvents { file.count > 0 })
    #expect(copies.count == 0, "the file's own change is not a copy")
    let fileCalls = file.count

    try replaceAtomically(folder.file("notes.copy-1.json"), with: "[2]")
    #expect(await afterKernelEvents { copies.count > 0 })
    #expect(file.count == fileCalls, "a copy is not the file")
    try replaceAtomically(folder.file("other.json"), with: "[3]")

    subscription?.cancel()
    subscription = nil
    #expect(watcher.subscriberCount == 0)
    #expect(watcher.watchedFolderCount == 0)
    let (filesSeen, copiesSeen) = (file.count, copies.count)
    // NB: a file written last, watched by a route of its own: the watcher handles events in
    // order, so once it is told, the writes before it were handled too (no wait on the clock).
    let sentinel = Calls()
    let sentinelWatch = watcher.subscribe(folder.file("sentinel.json")) { sentinel.record() }
    try replaceAtomically(folder.file("notes.json"), with: "[4]")
    try replaceAtomically(folder.file("notes.copy-2.json"), with: "[5]")
    try replaceAtomically(folder.file("sentinel.json"), with: "[6]")
    #expect(await afterKernelEvents { sentinel.count > 0 })
    #expect(file.count == filesSeen && copies.count == copiesSeen, "cancelled: neither is told")
    withExtendedLifetime(sentinelWatch) {}
  }

  @Test("A file's watch with its folder's copies catches both up once a missing folder appears")
  func fileAndEntriesCatchUp() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b", isDirectory: true)
    let watcher = FolderWatcher()
    let file = Calls()
    let copies = Calls()
    let subscription = watcher.subscribe(
      path: folder.appendingPathComponent("notes.json").path,
      entriesMatching: { $0.hasPrefix("notes.copy") }, onEntries: { copies.record() },
      onChange: { file.record() })
    #expect(watcher.watchedFolders == [watchedPath(root.url)])

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents {
        file.count == 1 && copies.count == 1 && watcher.watchedFolders == [watchedPath(folder)]
      }, "both were blind while the folder was missing: both are told")
    withExtendedLifetime(subscription) {}
  }
}
