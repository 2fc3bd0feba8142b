import DraftsFeature
import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// The app and the real `drafts` program change one draft at once: what each meant survives.
///
/// The app (this test's process, over the real store) changes a draft and has not saved yet; the
/// `drafts` program, a process of its own, changes the same draft and saves; then the app saves
/// (the format guide, "What two versions of an app do to each other's data", and the Data
/// safety article's merge field by field).
@Suite("The app and the drafts program changing one draft at once")
struct DraftsFieldMergeTests {
  /// The app: a process of its own over the real store, whose changes wait for its save.
  func app(_ store: URL) -> Shared<[Draft]> {
    let context = StorageContext(name: "app", fileSystem: LocalFileSystem(), isIsolated: true) {
      _ in InMemoryPreferences()
    }
    return StorageContext.withValue(context) {
      Shared(
        .fileStorage(store, format: DraftsFormat.self, saveInterval: .seconds(3600)), default: [])
    }
  }

  /// A store of one draft, the app over it, and the draft's ID.
  func setUp() throws -> (TemporaryFolder, URL, Shared<[Draft]>, UUID) {
    let home = try DraftsProcess.home()
    let store = home.url.appendingPathComponent("drafts.json")
    let draft = Draft(body: "first")
    try DraftsFormat.encode([draft]).write(to: store)
    let app = app(store)
    #expect(app.wrappedValue == [draft])
    return (home, store, app, draft.id)
  }

  func drafts(_ arguments: String..., home: TemporaryFolder) throws {
    let store = home.url.appendingPathComponent("drafts.json")
    let run = try DraftsProcess.run(["--store", store.path] + arguments, home: home.url)
    #expect(run.exitCode == 0, "drafts \(arguments): \(run.standardError)")
  }

  func stored(_ store: URL) throws -> [Draft] { try DraftsFormat.decode(Data(contentsOf: store)) }

  @Test("The app pins a draft while drafts edits its text: both are in the store")
  func appPinsProgramEdits() async throws {
    let (home, store, app, id) = try setUp()
    app.withLock { $0[0].pinned = true }
    try drafts("edit", id.uuidString, "edited by drafts", home: home)
    try await app.save()
    #expect(try stored(store).map { [$0.body, "\($0.pinned)"] } == [["edited by drafts", "true"]])
    #expect(app.wrappedValue == (try stored(store)))
    #expect(app.lastConflict?.copy == nil, "nothing changed on both sides: no copy")
  }

  @Test("The app edits a draft's text while drafts pins it: both are in the store")
  func appEditsProgramPins() async throws {
    let (home, store, app, id) = try setUp()
    app.withLock { $0[0].body = "edited in the app" }
    try drafts("pin", id.uuidString, home: home)
    try await app.save()
    #expect(
      try stored(store).map { [$0.body, "\($0.pinned)"] } == [["edited in the app", "true"]])
  }

  @Test("Both edit the draft's text: the app's is written, the program's kept, and both told")
  func bothEditTheText() async throws {
    let (home, store, app, id) = try setUp()
    app.withLock { $0[0].body = "edited in the app" }
    try drafts("edit", id.uuidString, "edited by drafts", home: home)
    try await app.save()
    #expect(try stored(store).map(\.body) == ["edited in the app"], "ours, the later save's")
    let conflict = try #require(app.lastConflict)
    #expect(conflict.resolution == .merged(overlapping: ["\(id.uuidString).body"]))
    let copy = try #require(conflict.copy, "the program's text is kept beside the store")
    #expect(try DraftsFormat.decode(Data(contentsOf: copy)).map(\.body) == ["edited by drafts"])
    // The program, run again, hears of the version kept beside the store: the app's copy of
    // its text. Another app process opening the store hears of it too.
    let again = self.app(store)
    #expect(await waitUntil(timeout: .seconds(60)) { again.lastConflict != nil })
    guard case .keptBoth(let told)? = again.lastConflict?.resolution else {
      Issue.record("told of the copy, got \(String(describing: again.lastConflict))")
      return
    }
    #expect(told.lastPathComponent == copy.lastPathComponent)
  }
}
