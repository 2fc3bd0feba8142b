import Foundation

/// A fresh folder under the system's temporary folder, removed with everything in it when the
/// last reference to it goes away.
///
/// For a test that works on the real disk outside Keepsake's keys: a child process's home, a
/// folder of fixtures to record, a file to damage by hand. Keep the folder in a local for as
/// long as the test uses its files:
///
/// ```swift
/// @Test func recordsTheShape() throws {
///   let folder = try TemporaryFolder()
///   try Data("[]".utf8).write(to: folder.file("notes-v1.json"))
///   #expect(folder.names == ["notes-v1.json"])
/// }
/// ```
///
/// For keys on the real disk, ``withConfinedStorage(isolation:_:)`` confines them to one of these.
public final class TemporaryFolder: Sendable {
  /// The folder.
  public let url: URL

  /// Makes a new, empty folder with a name no other test uses.
  ///
  /// - Throws: The file system's error when the folder cannot be made.
  public convenience init() throws {
    self.init(unmade: ())
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// Reserves a name without making the folder, for a caller that makes it on first use.
  init(unmade: Void) {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-\(UUID().uuidString)", isDirectory: true)
  }

  /// The URL of `name` inside the folder (a relative path such as `"a/b.json"` works too).
  public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// The names of the folder's entries, sorted; empty when the folder cannot be read.
  public var names: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
