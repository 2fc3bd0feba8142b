import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Names up to the file system's limit of 255 bytes, on the real disk: the file, its lock, its
/// temporary files and its copies all fit, and a longer name is refused when the key is made.
@Suite("Long names")
struct LongNameTests {
  struct Settings: Codable, Equatable, Sendable {
    var theme: String
  }

  /// A file name of exactly `length` bytes, ending in `.json`.
  static func name(_ length: Int, filler: String = "n") -> String {
    let stem = length - ".json".utf8.count
    return String(repeating: filler, count: stem / filler.utf8.count) + ".json"
  }

  @Test(
    "Every name up to 255 bytes saves, keeps a conflict copy and a quarantine copy",
    arguments: [200, 210, 219, 220, 230, 240, 250, 255])
  func everyNameWorks(_ length: Int) async throws {
    let disk = try RealDisk()
    let name = Self.name(length)
    #expect(name.utf8.count == length)
    let url = disk.file(name)
    let key = FileStorageKey<Settings>.fileStorage(url, saveInterval: .seconds(3600))
    let settings = disk.shared(key, in: disk.process(), default: Settings(theme: "light"))

    // A plain save, twice: a new file, then a replace.
    settings.withLock { $0.theme = "dark" }
    try await settings.save()
    settings.withLock { $0.theme = "blue" }
    try await settings.save()

    // Another process's version meets a pending change: it is kept as a conflict copy.
    settings.withLock { $0.theme = "ours" }
    try LocalFileSystem().writeAtomically(Data(#"{"theme":"theirs"}"#.utf8), to: url)
    try await settings.save()
    let conflict = try #require(settings.lastConflict)
    guard case .keptBoth(let copy) = conflict.resolution else {
      Issue.record("expected a conflict copy, got \(conflict)")
      return
    }
    #expect(try Data(contentsOf: copy) == Data(#"{"theme":"theirs"}"#.utf8))

    // A damaged file, replaced explicitly: set aside as a quarantine copy first.
    try LocalFileSystem().writeAtomically(Data("damaged".utf8), to: url)
    let fresh = disk.shared(key, in: disk.process("a later launch"), default: Settings(theme: "x"))
    #expect(fresh.loadError != nil)
    let quarantine = try #require(try await fresh.replaceUnreadableData())
    #expect(try Data(contentsOf: quarantine) == Data("damaged".utf8))

    let names = disk.folder.names
    #expect(names.allSatisfy { $0.utf8.count <= 255 })
    #expect(!names.contains { $0.contains(".keepsake-tmp-") }, "no temporary file is left")
    #expect(names.contains(FileLock.lockFileName(for: name)))
    for made in [copy, quarantine] {
      #expect(Quarantine.isCopy(named: made.lastPathComponent, of: name))
      #expect(Quarantine.originalURL(of: made, among: names) == url)
    }
  }

  @Test("A name of two-byte characters is shortened between characters")
  func multiByteName() async throws {
    let disk = try RealDisk()
    let name = Self.name(255, filler: "é")
    let url = disk.file(name)
    try LocalFileSystem().writeAtomically(Data("damaged".utf8), to: url)
    let settings = disk.shared(
      .fileStorage(url), in: disk.process(), default: Settings(theme: "light"))
    let quarantine = try #require(try await settings.replaceUnreadableData())
    let copyName = quarantine.lastPathComponent
    #expect(copyName.utf8.count <= 255)
    #expect(copyName.hasPrefix("éé"))
    #expect(Quarantine.originalURL(of: quarantine, among: disk.folder.names) == url)
    #expect(FileLock.lockFileName(for: name).utf8.count <= 255)
  }

  @Test(
    "A name longer than 255 bytes is refused when the key is made, and nothing is touched",
    arguments: StorageBackend.allCases)
  func tooLongIsRefused(_ backend: StorageBackend) async throws {
    try await backend.run { disk in
      let folder = URL(fileURLWithPath: "/data")
      let url = folder.appendingPathComponent(Self.name(256))
      @Shared(.fileStorage(url)) var settings = Settings(theme: "light")
      let loadError = try #require($settings.loadError)
      let reason = (loadError.underlying as? FileSystemError)?.reason
      #expect(reason == .nameTooLong(name: url.lastPathComponent, length: 256, limit: 255))
      #expect(loadError.description.contains("is 256 bytes long, more than the 255 bytes"))
      #expect(loadError.description.hasSuffix("use a shorter name."))
      #expect(!loadError.description.contains("replaceUnreadableData()"), "it would not help")
      $settings.withLock { $0.theme = "dark" }
      await #expect(throws: SharedSaveError.self) { try await $settings.save() }
      #expect(try disk.names(in: folder).isEmpty)
    }
  }

  @Test("A shortened name keeps the start of the name and a digest that never changes")
  func shortenedNames() {
    // NB: pinned: processes of every version must make the same lock name for one file.
    #expect(FileName.digest("drafts.json") == "47217e720e0be747")
    #expect(FileName.fitting("drafts.json", within: 11) == "drafts.json")
    let long = String(repeating: "a", count: 300)
    let short = FileName.fitting(long, within: 250)
    #expect(short.utf8.count == 250)
    #expect(short == String(repeating: "a", count: 233) + "~" + FileName.digest(long))
    #expect(
      FileName.fitting(long + "b", within: 250) != short, "names alike but for the end differ")
    #expect(FileLock.lockFileName(for: "drafts.json") == "drafts.json.lock")
  }
}
