import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// The copies a key keeps beside its file, on the real disk: they never replace each other, an
/// identical one is not made twice, and conflict copies are bounded.
@Suite("Conflict and quarantine copies")
struct ConflictCopyTests {
  /// A value with no meaningful merge: every conflict keeps both versions.
  struct Settings: Codable, Equatable, Sendable {
    var theme: String
  }

  /// A key that saves only when told to, so each conflict is made exactly where the test says.
  static func key(_ url: URL) -> FileStorageKey<Settings> {
    .fileStorage(url, saveInterval: .seconds(3600))
  }

  /// Makes one conflict: a change is pending here when another process replaces the file with
  /// `theirs`; the save keeps theirs as a conflict copy and writes ours.
  static func conflict(
    _ settings: Shared<Settings>, at url: URL, theirs: String
  ) async throws -> SharedConflict? {
    settings.withLock { $0.theme = "ours before \(theirs)" }
    try LocalFileSystem().writeAtomically(
      try JSONEncoder().encode(Settings(theme: theirs)), to: url)
    try await settings.save()
    return settings.lastConflict
  }

  static func copies(in disk: RealDisk, marker: String) -> [String] {
    Quarantine.copies(of: "settings.json", among: disk.folder.names, marker: marker)
  }

  @Test("Two conflict copies of one file made within one second are both kept")
  func twoConflictCopies() async throws {
    let disk = try RealDisk()
    let url = disk.file("settings.json")
    let settings = disk.shared(Self.key(url), in: disk.process(), default: Settings(theme: ""))
    _ = try await Self.conflict(settings, at: url, theirs: "first")
    _ = try await Self.conflict(settings, at: url, theirs: "second")

    let copies = Self.copies(in: disk, marker: Quarantine.conflictMarker)
    #expect(copies.count == 2, "\(disk.folder.names)")
    let kept = try copies.map {
      try JSONDecoder().decode(Settings.self, from: Data(contentsOf: disk.file($0)))
    }
    #expect(kept == [Settings(theme: "first"), Settings(theme: "second")])
  }

  @Test("Two quarantine copies of one file made within one second are both kept")
  func twoQuarantineCopies() async throws {
    let disk = try RealDisk()
    let url = disk.file("settings.json")
    for damage in ["damaged once", "damaged twice"] {
      try LocalFileSystem().writeAtomically(Data(damage.utf8), to: url)
      let settings = disk.shared(
        Self.key(url), in: disk.process(damage), default: Settings(theme: ""))
      #expect(settings.loadError != nil)
      _ = try #require(try await settings.replaceUnreadableData())
    }
    let copies = Self.copies(in: disk, marker: Quarantine.marker)
    #expect(copies.count == 2, "\(disk.folder.names)")
    #expect(
      try copies.map { try Data(contentsOf: disk.file($0)) } == [
        Data("damaged once".utf8), Data("damaged twice".utf8),
      ])
  }

  @Test("A new copy never replaces a file of the same name")
  func neverReplaces() throws {
    let disk = try RealDisk()
    let copy = disk.file("settings.conflict-20261201T090000Z.json")
    try Data("kept first".utf8).write(to: copy)
    #expect(throws: FileSystemError(.write, path: copy.path, reason: .alreadyExists)) {
      try LocalFileSystem().createAtomically(Data("made second".utf8), at: copy)
    }
    #expect(try Data(contentsOf: copy) == Data("kept first".utf8))
    #expect(disk.folder.names == [copy.lastPathComponent], "no temporary file is left")
  }

  @Test("A copy identical to one already kept is not written again")
  func identicalCopyIsNotRepeated() async throws {
    let disk = try RealDisk()
    let url = disk.file("settings.json")
    let settings = disk.shared(Self.key(url), in: disk.process(), default: Settings(theme: ""))
    let first = try #require(try await Self.conflict(settings, at: url, theirs: "same"))
    let second = try #require(try await Self.conflict(settings, at: url, theirs: "same"))

    #expect(Self.copies(in: disk, marker: Quarantine.conflictMarker).count == 1)
    #expect(first.resolution == second.resolution, "the second conflict names the copy kept first")
  }

  @Test("Past 10 conflict copies the oldest and the newest stay, and the app is told")
  func boundedCopies() async throws {
    let disk = try RealDisk()
    let url = disk.file("settings.json")
    let settings = disk.shared(Self.key(url), in: disk.process(), default: Settings(theme: ""))
    var pruned: [String] = []
    var last: SharedConflict?
    // NB: 25 stands for any number of conflicts past the limit: past it, each conflict removes
    // one.
    for index in 0..<25 {
      last = try await Self.conflict(settings, at: url, theirs: "version \(index)")
      pruned += last?.prunedCopies.map(\.lastPathComponent) ?? []
    }

    let copies = Self.copies(in: disk, marker: Quarantine.conflictMarker)
    #expect(copies.count == Quarantine.conflictCopyLimit)
    let kept = try copies.map {
      try JSONDecoder().decode(Settings.self, from: Data(contentsOf: disk.file($0))).theme
    }
    #expect(kept == ["version 0"] + (16..<25).map { "version \($0)" })
    #expect(pruned.count == 15)
    #expect(Set(pruned).isDisjoint(with: copies))
    let description = try #require(last).description
    #expect(description.contains("To keep at most 10 conflict copies, 1 older one(s) were removed"))
  }

  @Test("Every path keeping a conflict copy keeps one per bytes, and at most ten")
  func sharedKeepingRules() throws {
    let disk = InMemoryFileSystem()
    let file = URL(fileURLWithPath: "/app/settings.json")
    try disk.writeAtomically(Data("{}".utf8), to: file)
    let first = try ConflictCopies.keep(Data("[1]".utf8), besides: file, in: disk)
    let again = try ConflictCopies.keep(Data("[1]".utf8), besides: file, in: disk)
    #expect(again.url == first.url, "the same bytes are never kept twice")
    var pruned: [URL] = []
    for index in 2...12 {
      pruned += try ConflictCopies.keep(Data("[\(index)]".utf8), besides: file, in: disk).pruned
    }
    let copies = try disk.contentsOfDirectory(at: file.deletingLastPathComponent())
      .filter { $0.contains(".conflict-") }
    #expect(copies.count == Quarantine.conflictCopyLimit)
    #expect(pruned.count == 2)
    #expect(!pruned.contains(first.url), "the oldest copy stays")
  }
}
