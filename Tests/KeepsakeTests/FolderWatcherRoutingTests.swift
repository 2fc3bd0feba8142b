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

/// How the folder watcher follows a file's folder when it is created, removed or renamed
/// (`FolderWatcher+Routing.swift`).
@Suite("Folder watcher routing")
struct FolderWatcherRoutingTests {
  @Test("A folder created after subscribing, parents and all, is watched from then on")
  func folderCreatedLater() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b/c", isDirectory: true)
    let file = folder.appendingPathComponent("items.json")
    let watcher = FolderWatcher()
    let calls = Calls()
    let subscription = watcher.subscribe(file) { calls.record() }
    #expect(watcher.watchedFolders == [watchedPath(root.url)])
    #expect(watcher.failures.isEmpty)

    // All three folders at once, as `mkdir -p` makes them.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents {
        calls.count == 1 && watcher.watchedFolders == [watchedPath(folder)]
      })

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
    #expect(watcher.watchedFolders == [watchedPath(root.url), watchedPath(folder)])
    withExtendedLifetime(subscriptions) {}
  }

  @Test("A folder made while its parent's watch is being added is not missed")
  func folderMadeDuringTheWatch() async throws {
    let root = try TemporaryFolder()
    let folder = root.url.appendingPathComponent("a/b", isDirectory: true)
    // Made just before the system call that watches the parent: the parent's watch never
    // reports it, only the check after the watch was added can find it.
    let watcher = FolderWatcher(faultHook: { _, watched in
      if watched == watchedPath(root.url) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      return nil
    })
    let calls = Calls()
    let subscription = watcher.subscribe(folder.appendingPathComponent("items.json")) {
      calls.record()
    }
    #expect(watcher.watchedFolders == [watchedPath(folder)])
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
    #expect(watcher.watchedFolders == [watchedPath(folder)])

    // The subscriber is told its file is gone with its folder, and waits in the parent.
    #expect(rmdir(folder.path) == 0)
    #expect(
      await afterKernelEvents {
        calls.count == 1 && watcher.watchedFolders == [watchedPath(root.url)]
      })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents {
        calls.count == 2 && watcher.watchedFolders == [watchedPath(folder)]
      })

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
      await afterKernelEvents {
        calls.count == 1 && watcher.watchedFolders == [watchedPath(root.url)]
      })

    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(
      await afterKernelEvents {
        calls.count == 2 && watcher.watchedFolders == [watchedPath(folder)]
      })
    withExtendedLifetime(subscription) {}
  }
}
