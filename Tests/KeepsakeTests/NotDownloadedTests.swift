import Foundation
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

/// An iCloud Drive file not downloaded yet is "not available yet", never "no file".
///
/// See `NotDownloaded`: a load error that protects it, no read that blocks, a download asked for,
/// and the file loaded once it arrives. Its placeholder's name works the same on every disk, so
/// it is tested here on the in-memory disk and the real one; the dataless flag is Apple's, and
/// its meaning is tested as a function.
@Suite("Files iCloud Drive has not downloaded yet")
struct NotDownloadedTests {
  @Test(
    "A placeholder is the file's name between a dot and .icloud",
    arguments: [
      ("/Users/ann/Documents/notes.json", "/Users/ann/Documents/.notes.json.icloud"),
      ("/notes.json", "/.notes.json.icloud"),
      ("notes", ".notes.icloud"),
    ])
  func placeholderName(_ path: String, _ placeholder: String) {
    #expect(NotDownloaded.placeholderPath(for: path) == placeholder)
  }

  @Test(
    "Only the SF_DATALESS bit of st_flags means dataless",
    arguments: [
      (UInt32(0x4000_0000), true), (0x4000_0020, true), (0, false), (0x20, false),
      (0x8000_0000, false),
    ])
  func dataless(_ flags: UInt32, _ expected: Bool) {
    #expect(NotDownloaded.isDataless(flags: flags) == expected)
  }

  @Test("Its error says plainly what it is and that the file is left alone")
  func message() {
    let error = SharedLoadError(
      keyID: SharedKeyID(kind: "file", name: "/docs/notes.json"),
      url: URL(fileURLWithPath: "/docs/notes.json"),
      underlying: NotDownloaded.error("/docs/notes.json"))
    #expect(
      error.description
        == "The file /docs/notes.json could not be read: Could not read /docs/notes.json: it is "
        + "not downloaded yet from iCloud, so it was not read and nothing is saved over it; it "
        + "loads once it is downloaded.")
  }

  @Test("In memory: a placeholder protects the file, asks for it, and the file loads on arrival")
  func inMemory() async throws {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/docs/notes.json")
    disk.setContents(Data("placeholder".utf8), at: URL(fileURLWithPath: "/docs/.notes.json.icloud"))
    let context = StorageContext.inMemory(name: "device", fileSystem: disk)
    try await StorageContext.withValue(context) {
      @Shared(.fileStorage(url)) var notes: [String] = []
      let shared = $notes
      try Self.expectNotDownloaded(shared, url: url)
      #expect(disk.downloadRequests == [url.path])

      // A change is kept in memory and never written over the person's data.
      shared.withLock { $0.append("typed while it downloads") }
      await #expect(throws: SharedSaveError.self) { try await shared.save() }
      #expect(disk.files[url.path] == nil)

      // iCloud Drive puts the file in place of its placeholder.
      disk.setContents(nil, at: URL(fileURLWithPath: "/docs/.notes.json.icloud"))
      disk.setContents(Data(#"["from the cloud"]"#.utf8), at: url)
      #expect(await waitUntil { shared.loadError == nil })
      // The change made meanwhile and the downloaded file cannot merge: both are kept, ours
      // in the file and the downloaded one beside it, and the app is told.
      #expect(await waitUntil { shared.lastConflict != nil })
      #expect(shared.wrappedValue == ["typed while it downloads"])
      let kept = disk.files.filter { $0.value == Data(#"["from the cloud"]"#.utf8) }
      #expect(kept.count == 1, "\(disk.files.keys.sorted())")
    }
  }

  @Test("On the real disk: a placeholder protects the file, and the file loads on arrival")
  func realDisk() async throws {
    let disk = try RealDisk()
    let url = disk.file("notes.json")
    let placeholder = disk.file(".notes.json.icloud")
    try Data("placeholder".utf8).write(to: placeholder)
    try await StorageContext.withValue(disk.process()) {
      @Shared(.fileStorage(url)) var notes: [String] = []
      let shared = $notes
      try Self.expectNotDownloaded(shared, url: url)
      await #expect(throws: SharedSaveError.self) { try await shared.save() }
      #expect(disk.folder.names == [".notes.json.icloud"])

      try Data(#"["from the cloud"]"#.utf8).write(to: url, options: .atomic)
      try FileManager.default.removeItem(at: placeholder)
      #expect(await waitUntil { shared.wrappedValue == ["from the cloud"] })
      #expect(shared.loadError == nil)
    }
  }

  @Test("A file evicted after it was read is protected, not taken for deleted")
  func evictedLater() async throws {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/docs/notes.json")
    let placeholder = URL(fileURLWithPath: "/docs/.notes.json.icloud")
    disk.setContents(Data(#"["kept in the cloud"]"#.utf8), at: url)
    try await StorageContext.withValue(.inMemory(name: "device", fileSystem: disk)) {
      @Shared(.fileStorage(url)) var notes: [String] = []
      let shared = $notes
      #expect(shared.wrappedValue == ["kept in the cloud"])
      // iOS evicts the file to free space: its placeholder takes its place.
      disk.setContents(Data("placeholder".utf8), at: placeholder, notifyingWatchers: false)
      disk.setContents(nil, at: url)
      #expect(await waitUntil { shared.loadError != nil })
      try Self.expectNotDownloaded(shared, url: url)
      shared.withLock { $0.append("typed meanwhile") }
      await #expect(throws: SharedSaveError.self) { try await shared.save() }
      #expect(disk.files[url.path] == nil)
    }
  }

  @Test("A file with no placeholder beside it is simply not there yet: no error, no request")
  func noPlaceholder() async throws {
    let disk = InMemoryFileSystem()
    let url = URL(fileURLWithPath: "/docs/notes.json")
    disk.setContents(Data("x".utf8), at: URL(fileURLWithPath: "/docs/.other.json.icloud"))
    try await StorageContext.withValue(.inMemory(name: "device", fileSystem: disk)) {
      @Shared(.fileStorage(url)) var notes: [String] = []
      #expect($notes.loadError == nil)
      $notes.withLock { $0.append("first") }
      try await $notes.save()
    }
    #expect(disk.files[url.path] != nil)
    #expect(disk.downloadRequests.isEmpty)
  }

  /// Expects `shared`'s load error to be the file's "not downloaded yet".
  static func expectNotDownloaded(_ shared: Shared<[String]>, url: URL) throws {
    let loadError = try #require(shared.loadError)
    let underlying = try #require(loadError.underlying as? FileSystemError)
    #expect(underlying.reason == .notDownloaded)
    #expect(underlying.path == url.path)
  }
}
