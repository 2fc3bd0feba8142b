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

/// The watcher's watches of files for writes in place (`FolderWatcher+Files.swift`).
///
/// For a backend whose folder watch misses them, as Darwin's does: which files get one, moving it
/// to the new file after an atomic replace, releasing it, and the limit. Run with a backend of
/// the test's own whose events the test sends by hand, over real files.
@Suite("Folder watcher: files watched for writes in place")
struct FolderWatcherFilesTests {
  /// A folder with `names` in it, and a watcher over a recording backend.
  struct Setup {
    let folder: TemporaryFolder
    let backend = RecordingBackend()
    let watcher: FolderWatcher

    init(
      files names: [String] = ["a.json"], folderWatchSeesWrites: Bool = false,
      fileWatchLimit: Int = FileWatches.defaultLimit
    ) throws {
      folder = try TemporaryFolder()
      for name in names { try Data("[0]".utf8).write(to: folder.file(name)) }
      let backend = self.backend
      watcher = FolderWatcher(fileWatchLimit: fileWatchLimit) { _ in
        RecordingBackend.Handle(backend, folderWatchSeesWrites: folderWatchSeesWrites)
      }
    }

    func path(_ name: String) -> String { folder.file(name).path }

    /// Sends the event the folder's watch would for an entry `name` (nil: Darwin's, no name).
    func folderEvent(_ name: String?) throws {
      let token = try #require(backend.folderToken(watchedPath(folder.url)))
      backend.send([.entry(token: token, name: name)])
    }

    /// Sends the event of the watch of file `name`.
    func fileEvent(_ name: String) throws {
      backend.send([.file(token: try #require(backend.fileToken(path(name))))])
    }
  }

  @Test("A backend whose folder watch misses writes gets a watch of each subscribed file")
  func eachFileIsWatched() throws {
    let setup = try Setup(files: ["a.json", "b.json"])
    let (a, b) = (Calls(), Calls())
    let subscriptions = [
      setup.watcher.subscribe(setup.folder.file("a.json")) { a.record() },
      setup.watcher.subscribe(setup.folder.file("b.json")) { b.record() },
    ]
    #expect(setup.backend.watchedFiles == [setup.path("a.json"), setup.path("b.json")])

    try setup.fileEvent("a.json")
    #expect(a.count == 1 && b.count == 0, "a file's event is its own subscribers' only")
    withExtendedLifetime(subscriptions) {}
  }

  @Test("A backend whose folder watch sees writes, as inotify's does, gets no watch of files")
  func noFileWatchesWhereTheFolderSeesWrites() throws {
    let setup = try Setup(folderWatchSeesWrites: true)
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    #expect(setup.watcher.watchedFolderCount == 1)
    #expect(setup.backend.fileWatchesAdded == 0)
    withExtendedLifetime(subscription) {}
  }

  @Test(
    "A file replaced atomically is watched again, as the new file, on its folder's event",
    arguments: ["a.json", nil])
  func replacedFileIsWatchedAgain(_ eventName: String?) throws {
    let setup = try Setup()
    let calls = Calls()
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) { calls.record() }
    let old = try #require(setup.backend.fileToken(setup.path("a.json")))

    try replaceAtomically(setup.folder.file("a.json"), with: "[1]")
    try setup.folderEvent(eventName)
    let new = try #require(setup.backend.fileToken(setup.path("a.json")))
    #expect(new != old)
    #expect(setup.backend.liveFileTokens == [new], "the old file's watch is released")
    #expect(calls.count == 1)

    // A late event of the old file's watch is nobody's; the new file's reaches the subscriber.
    setup.backend.send([.file(token: old)])
    #expect(calls.count == 1)
    try setup.fileEvent("a.json")
    #expect(calls.count == 2)
    withExtendedLifetime(subscription) {}
  }

  @Test("The old file's own event after an atomic replace moves the watch to the new file")
  func replacedFileEventMovesTheWatch() throws {
    let setup = try Setup()
    let calls = Calls()
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) { calls.record() }
    let old = try #require(setup.backend.fileToken(setup.path("a.json")))

    try replaceAtomically(setup.folder.file("a.json"), with: "[1]")
    setup.backend.send([.file(token: old)])
    #expect(calls.count == 1)
    let new = try #require(setup.backend.fileToken(setup.path("a.json")))
    #expect(setup.backend.liveFileTokens == [new] && new != old)

    // The folder's event of the same replace comes after: the watch is on the right file already.
    try setup.folderEvent("a.json")
    #expect(setup.backend.liveFileTokens == [new])
    withExtendedLifetime(subscription) {}
  }

  @Test("A file that does not exist yet is watched once its folder's watch says it appeared")
  func missingFileIsWatchedOnceCreated() throws {
    let setup = try Setup(files: [])
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    #expect(setup.backend.watchedFiles.isEmpty)
    #expect(subscription.failure == nil, "a missing file is no failure")

    try Data("[1]".utf8).write(to: setup.folder.file("a.json"))
    try setup.folderEvent("a.json")
    #expect(setup.backend.watchedFiles == [setup.path("a.json")])
    withExtendedLifetime(subscription) {}
  }

  @Test("A removed file's watch is released, and its subscriber told")
  func removedFileReleasesItsWatch() throws {
    let setup = try Setup()
    let calls = Calls()
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) { calls.record() }
    let token = try #require(setup.backend.fileToken(setup.path("a.json")))

    #expect(unlink(setup.path("a.json")) == 0)
    setup.backend.send([.file(token: token)])
    #expect(calls.count == 1)
    #expect(setup.backend.liveFileTokens.isEmpty)
    withExtendedLifetime(subscription) {}
  }

  @Test("Two subscriptions of one file share one watch, released with the last of them")
  func oneWatchPerFile() throws {
    let setup = try Setup()
    let first = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    let second = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    #expect(setup.backend.fileWatchesAdded == 1)

    first.cancel()
    #expect(setup.backend.liveFileTokens.count == 1)
    second.cancel()
    #expect(setup.backend.liveFileTokens.isEmpty)
    #expect(setup.watcher.watchedFolderCount == 0)
  }

  @Test("A folder's conflict-copy watch gets no watch of a file")
  func entriesAreNotFiles() throws {
    let setup = try Setup()
    let subscription = setup.watcher.subscribe(entriesOf: setup.folder.url) { _ in
      true
    } onChange: {
    }
    #expect(setup.watcher.watchedFolderCount == 1)
    #expect(setup.backend.fileWatchesAdded == 0)
    withExtendedLifetime(subscription) {}
  }

  @Test("A folder gone takes its files' watches with it")
  func goneFolderReleasesFileWatches() throws {
    let setup = try Setup()
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    let folderToken = try #require(setup.backend.folderToken(watchedPath(setup.folder.url)))
    #expect(setup.backend.liveFileTokens.count == 1)

    #expect(unlink(setup.path("a.json")) == 0)
    #expect(rmdir(setup.folder.url.path) == 0)
    setup.backend.send([.folderGone(token: folderToken)])
    #expect(setup.backend.liveFileTokens.isEmpty)
    #expect(
      setup.watcher.watchedFolders == [watchedPath(setup.folder.url.deletingLastPathComponent())])
    withExtendedLifetime(subscription) {}
  }

  @Test("Past the limit a file says it is not watched for writes in place, until a watch is freed")
  func limitOfFileWatches() throws {
    let setup = try Setup(files: ["a.json", "b.json", "c.json"], fileWatchLimit: 2)
    let a = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    let b = setup.watcher.subscribe(setup.folder.file("b.json")) {}
    let c = setup.watcher.subscribe(setup.folder.file("c.json")) {}
    #expect(setup.backend.watchedFiles == [setup.path("a.json"), setup.path("b.json")])
    let expected = WatchFailure(
      file: setup.path("c.json"), folder: "", operation: .watchFile, code: EMFILE)
    #expect(c.failure as? WatchFailure == expected)
    #expect(setup.watcher.failures == [expected])
    #expect(
      expected.description
        == "Cannot watch \(setup.path("c.json")) for changes by other processes: no file "
        + "descriptor is left to watch it for writes in place (EMFILE); it is seen when "
        + "replaced, not when rewritten in place.")

    a.cancel()
    #expect(setup.backend.watchedFiles == [setup.path("b.json"), setup.path("c.json")])
    #expect(c.failure == nil)
    #expect(setup.watcher.failures.isEmpty)
    withExtendedLifetime((b, c)) {}
  }

  @Test("A file watch the system refuses is reported, and tried again on the file's next event")
  func refusedFileWatch() throws {
    let setup = try Setup()
    setup.backend.refuse(with: EACCES)
    let subscription = setup.watcher.subscribe(setup.folder.file("a.json")) {}
    #expect(setup.backend.watchedFiles.isEmpty)
    #expect(
      subscription.failure as? WatchFailure
        == WatchFailure(
          file: setup.path("a.json"), folder: "", operation: .watchFile, code: EACCES))

    setup.backend.refuse(with: nil)
    try setup.folderEvent("a.json")
    #expect(setup.backend.watchedFiles == [setup.path("a.json")])
    #expect(subscription.failure == nil)
    withExtendedLifetime(subscription) {}
  }
}

/// A backend that records the watches it is asked for, and whose events a test sends by hand.
final class RecordingBackend: Sendable {
  private struct State {
    var folders: [String: Int] = [:]
    var files: [Int: String] = [:]
    var fileWatchesAdded = 0
    var nextToken = 100
    var refusal: Int32?
    var deliver: (@Sendable ([FolderEvent]) -> Void)?
  }
  private let state = Mutex(State())

  /// The paths of the live file watches, sorted.
  var watchedFiles: [String] { state.withLock { $0.files.values.sorted() } }
  /// The tokens of the live file watches.
  var liveFileTokens: Set<Int> { state.withLock { Set($0.files.keys) } }
  /// How many file watches were made in all.
  var fileWatchesAdded: Int { state.withLock { $0.fileWatchesAdded } }

  func folderToken(_ path: String) -> Int? { state.withLock { $0.folders[path] } }
  func fileToken(_ path: String) -> Int? {
    state.withLock { $0.files.first { $0.value == path }?.key }
  }

  /// Makes the next file watches fail with `code` (nil: succeed).
  func refuse(with code: Int32?) { state.withLock { $0.refusal = code } }

  /// Delivers `events` as the system would, outside any lock.
  func send(_ events: [FolderEvent]) {
    let deliver = state.withLock { $0.deliver }
    deliver?(events)
  }

  /// The backend value the watcher keeps; its calls go to the recording.
  struct Handle: FolderWatchBackend {
    let recording: RecordingBackend
    let folderWatchSeesWrites: Bool
    var deliver: @Sendable ([FolderEvent]) -> Void = { _ in } {
      didSet { recording.state.withLock { [deliver] in $0.deliver = deliver } }
    }

    init(_ recording: RecordingBackend, folderWatchSeesWrites: Bool) {
      self.recording = recording
      self.folderWatchSeesWrites = folderWatchSeesWrites
    }

    init(queue: DispatchQueue, faultHook: WatchFaultHook?) {
      self.init(RecordingBackend(), folderWatchSeesWrites: false)
    }

    mutating func addWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      .success(
        recording.state.withLock { state in
          defer { state.nextToken += 1 }
          state.folders[path] = state.nextToken
          return state.nextToken
        })
    }

    mutating func removeWatch(_ token: Int) {
      recording.state.withLock { state in state.folders = state.folders.filter { $0.value != token }
      }
    }

    mutating func addFileWatch(_ path: String) -> Result<Int, WatchCallFailure> {
      recording.state.withLock { state in
        if let code = state.refusal {
          return .failure(WatchCallFailure(operation: .watchFile, code: code))
        }
        defer { state.nextToken += 1 }
        state.files[state.nextToken] = path
        state.fileWatchesAdded += 1
        return .success(state.nextToken)
      }
    }

    mutating func removeFileWatch(_ token: Int) {
      recording.state.withLock { _ = $0.files.removeValue(forKey: token) }
    }

    mutating func shutDown() {
      recording.state.withLock { state in
        state.folders = [:]
        state.files = [:]
      }
    }
  }
}
