import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The backends' contract (`FolderWatchBackend.swift`), one body run against each backend.
///
/// Every way another writer changes a subscribed file is reported, a rewrite in place included,
/// on the real disk: inotify on Linux, the vnode dispatch sources on Apple platforms (a
/// maintainer's Mac runs that case).
@Suite("Folder watch backends: the contract")
struct FolderWatchBackendTests {
  /// The backends of this platform.
  enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    #if os(Linux) || os(Android)
      case inotify
    #endif
    #if canImport(Darwin)
      case dispatch
    #endif

    var testDescription: String { rawValue }

    /// A watcher of its own over this backend.
    func watcher() -> FolderWatcher {
      switch self {
      #if os(Linux) || os(Android)
        case .inotify: return FolderWatcher { InotifyWatcher(queue: $0, faultHook: nil) }
      #endif
      #if canImport(Darwin)
        case .dispatch: return FolderWatcher { DispatchFolderWatcher(queue: $0, faultHook: nil) }
      #endif
      }
    }
  }

  /// How another writer changes the file, which holds `[1]` before.
  enum Change: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Opened without truncating, written longer, closed: no rename, the same inode.
    case inPlace
    /// Opened with `O_TRUNC`, written, closed, as a non-atomic `Data.write` does.
    case truncatingInPlace
    /// The same number of bytes written over the old ones, in place.
    case sameSizeInPlace
    /// A temporary file renamed over it: a new inode.
    case atomicReplace
    /// Rewritten in place after an atomic replace: the new inode's write is seen too.
    case inPlaceAfterReplace

    var testDescription: String { rawValue }

    func apply(to file: URL) throws {
      switch self {
      case .inPlace, .inPlaceAfterReplace: try writeInPlace("[1, 2, 3]", to: file)
      case .truncatingInPlace: try writeInPlace("[4]", to: file, flags: O_TRUNC)
      case .sameSizeInPlace: try writeInPlace("[7]", to: file)
      case .atomicReplace: try replaceAtomically(file, with: "[5]")
      }
    }
  }

  @Test(
    "A subscribed file changed by another writer is reported, however it was written",
    arguments: Backend.allCases, Change.allCases)
  func changeIsReported(_ backend: Backend, _ change: Change) async throws {
    let folder = try TemporaryFolder()
    let file = folder.file("items.json")
    try Data("[1]".utf8).write(to: file)
    let watcher = backend.watcher()
    let calls = Calls()
    let subscription = watcher.subscribe(file) { calls.record() }

    if change == .inPlaceAfterReplace {
      try replaceAtomically(file, with: "[2]")
      // NB: a file written last, with a route of its own: once it is reported, the replace's
      // events were handled too, and a late one cannot pass for the write in place.
      let sentinel = Calls()
      let sentinelWatch = watcher.subscribe(folder.file("sentinel")) { sentinel.record() }
      try replaceAtomically(folder.file("sentinel"), with: "")
      #expect(await afterKernelEvents { calls.count > 0 && sentinel.count > 0 })
      withExtendedLifetime(sentinelWatch) {}
    }
    let before = calls.count
    try change.apply(to: file)
    #expect(await afterKernelEvents { calls.count > before }, "\(change) was never reported")
    withExtendedLifetime(subscription) {}
  }

  @Test("A file key in the live context sees another writer's same-size rewrite in place")
  func fileKeySeesSameSizeRewrite() async throws {
    try await withConfinedStorage { folder in
      let url = URL(fileURLWithPath: "/notes/numbers.json")
      @Shared(.fileStorage(url)) var numbers: [Int] = []
      $numbers.withLock { $0 = [1] }
      try await $numbers.save()

      // Another writer changes one digit in place: same size, same inode, no rename.
      let onDisk = folder.appendingPathComponent("notes/numbers.json")
      let saved = String(decoding: try Data(contentsOf: onDisk), as: UTF8.self)
      let rewritten = saved.replacingOccurrences(of: "[1]", with: "[7]")
      try #require(rewritten != saved && rewritten.utf8.count == saved.utf8.count)
      let inode = try FileManager.default.attributesOfItem(atPath: onDisk.path)[.systemFileNumber]
      try writeInPlace(rewritten, to: onDisk)
      let after = try FileManager.default.attributesOfItem(atPath: onDisk.path)[.systemFileNumber]
      #expect(inode as? Int == after as? Int)

      let shared = $numbers
      #expect(await waitUntil { shared.wrappedValue == [7] })
    }
  }
}

/// Writes `text` over the start of `file` through its own inode, as a writer without a rename
/// does: opened (with `flags`, such as `O_TRUNC`), written, closed.
func writeInPlace(_ text: String, to file: URL, flags: Int32 = 0) throws {
  let fd = open(file.path, O_WRONLY | flags)
  guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  defer { close(fd) }
  let bytes = Array(text.utf8)
  let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  guard written == bytes.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
