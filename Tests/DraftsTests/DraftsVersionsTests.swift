import DraftsFeature
import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Two versions of the drafts program sharing one store, as after an update on one device.
///
/// The real `drafts` program (format version 3) and a newer app whose format is version 4
/// (`body` renamed `content`): neither loses what the other wrote, in either order (the format
/// guide, "What two versions of an app do to each other's data").
@Suite("drafts programs of two format versions sharing one store")
struct DraftsVersionsTests {
  /// A draft as the newer version stores it.
  nonisolated struct DraftV4: Codable, Equatable, Identifiable, Sendable {
    var id: UUID
    var content: String
    var pinned: Bool
    var tags: [String]
  }

  /// The drafts format one version later: every version before, and a step from 3 to 4.
  nonisolated enum DraftsFormatV4: VersionedFormat {
    static let currentVersion = 4
    static let legacyVersion: Int? = 1
    static let migrations = DraftsFormat.migrations
      .migrating(to: 4, as: [DraftV4].self) { drafts in
        drafts.map { DraftV4(id: $0.id, content: $0.body, pinned: $0.pinned, tags: $0.tags) }
      }
  }

  /// The newer app: a process of its own over the real store.
  func newerApp(_ store: URL) -> Shared<[DraftV4]> {
    let context = StorageContext(
      name: "newer app", fileSystem: LocalFileSystem(), isIsolated: true
    ) { _ in InMemoryPreferences() }
    return StorageContext.withValue(context) {
      Shared(.fileStorage(store, format: DraftsFormatV4.self), default: [])
    }
  }

  func keptBeside(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { KeptCopy(url: folder.appendingPathComponent($0))?.reason == .unsaved }
  }

  @Test("The older program's draft added to a newer store is kept, then merged by the newer app")
  func olderAddsToNewerStore() async throws {
    let home = try DraftsProcess.home()
    let store = home.url.appendingPathComponent("drafts.json")
    // The newer app wrote the store, and ended (one still open would merge the kept draft as
    // it appears).
    let context = StorageContext(
      name: "newer app", fileSystem: LocalFileSystem(), isIsolated: true
    ) { _ in InMemoryPreferences() }
    try FileStorageKey<[DraftV4]>.fileStorage(store, format: DraftsFormatV4.self).save(
      [DraftV4(id: UUID(), content: "from v4", pinned: true, tags: ["new"])], in: context)

    let added = try DraftsProcess.run(["--store", store.path, "add", "from v3"], home: home.url)
    #expect(added.exitCode == 1, "the draft is not in the store: \(added.standardError)")
    #expect(added.standardError.contains("newer version of drafts (format version 4"))
    #expect(added.standardError.contains("kept beside them"), "\(added.standardError)")
    #expect(try keptBeside(home.url).count == 1)
    let untouched = try DraftsFormatV4.decode(Data(contentsOf: store))
    #expect(untouched.map(\.content) == ["from v4"], "the older program never writes over it")

    // The newer app, opened again (as the next launch), merges the kept draft and removes it.
    let relaunched = newerApp(store)
    try await relaunched.load()
    let merged = try DraftsFormatV4.decode(Data(contentsOf: store))
    #expect(Set(merged.map(\.content)) == ["from v4", "from v3"])
    #expect(merged.first { $0.content == "from v4" }?.pinned == true)
    #expect(DraftsFormatV4.version(of: try Data(contentsOf: store)).version == 4)
    #expect(try keptBeside(home.url).isEmpty)
    #expect(Set(relaunched.wrappedValue.map(\.content)) == ["from v4", "from v3"])
  }

  @Test("The newer app takes in the older program's store, and the older program is told")
  func newerOpensOlderStore() async throws {
    let home = try DraftsProcess.home()
    let store = home.url.appendingPathComponent("drafts.json")
    for text in ["one", "two"] {
      let run = try DraftsProcess.run(["--store", store.path, "add", text], home: home.url)
      #expect(run.exitCode == 0, "\(run.standardError)")
    }
    let newer = newerApp(store)
    #expect(Set(newer.wrappedValue.map(\.content)) == ["one", "two"], "migrated from version 3")
    newer.withLock { $0.append(DraftV4(id: UUID(), content: "three", pinned: false, tags: [])) }
    try await newer.save()

    // The older program now refuses to read the store, and keeps what it is asked to add.
    let listed = try DraftsProcess.run(["--store", store.path, "list"], home: home.url)
    #expect(listed.exitCode == 1)
    #expect(listed.standardError.contains("Nothing was changed"), "\(listed.standardError)")
    let added = try DraftsProcess.run(["--store", store.path, "add", "four"], home: home.url)
    #expect(added.exitCode == 1, "\(added.standardError)")

    try await newer.load()
    let merged = try DraftsFormatV4.decode(Data(contentsOf: store))
    #expect(Set(merged.map(\.content)) == ["one", "two", "three", "four"])
    #expect(try keptBeside(home.url).isEmpty)
  }
}
