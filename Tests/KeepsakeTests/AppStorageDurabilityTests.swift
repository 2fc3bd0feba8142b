import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// `.appStorage` keeps the same promises as files: an acknowledged save is on disk, a failed
/// write is visible, and a preference removed from outside is noticed (data-safety rules "An
/// acknowledged save is on disk", "Errors are typed and say what to do" and "Processes that
/// share a file lose nothing", DataSafety.md).
@Suite("App storage durability")
struct AppStorageDurabilityTests {
  /// Where the default suite of a context confined to `folder` lives.
  static func suiteURL(in folder: URL) -> URL {
    folder.appendingPathComponent(FilePreferences.defaultURL(suiteName: nil).path)
  }

  @Test("save() returns once the preference is written to the suite file")
  func saveIsDurable() async throws {
    let folder = try TemporaryFolder()
    let context = StorageContext.confined(to: folder.url)
    let count = StorageContext.withValue(context) { Shared(.appStorage("count"), default: 0) }
    count.withLock { $0 = 3 }
    try await count.save()
    // A fresh store reads the file, as another process would.
    let fromDisk = FilePreferences(url: Self.suiteURL(in: folder.url))
    #expect(fromDisk.value(forKey: "count") == .int(3))
  }

  @Test("A preferences write that fails is thrown by save() and shown in saveError")
  func writeFailureIsVisible() async throws {
    let folder = try TemporaryFolder()
    let suite = Self.suiteURL(in: folder.url)
    // A file where the suite's folder should be: every write of the suite fails.
    let blocker = suite.deletingLastPathComponent()
    try FileManager.default.createDirectory(
      at: blocker.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("not a folder".utf8).write(to: blocker)
    let context = StorageContext.confined(to: folder.url)
    let theme = StorageContext.withValue(context) { Shared(.appStorage("theme"), default: "") }

    theme.withLock { $0 = "dark" }
    await #expect(throws: SharedSaveError.self) { try await theme.save() }
    guard case .writeFailed? = theme.saveError else {
      Issue.record("expected a write failure, got \(String(describing: theme.saveError))")
      return
    }
    #expect(try Data(contentsOf: blocker) == Data("not a folder".utf8))

    // Once the obstacle is gone, the next flush writes the change and clears the error.
    try FileManager.default.removeItem(at: blocker)
    try await theme.flush()
    #expect(theme.saveError == nil)
    #expect(FilePreferences(url: suite).value(forKey: "theme") == .string("dark"))
  }

  @Test("A mutation's background write reports its failure without a save() call")
  func backgroundFailureIsVisible() async throws {
    let folder = try TemporaryFolder()
    let suite = Self.suiteURL(in: folder.url)
    let blocker = suite.deletingLastPathComponent()
    try FileManager.default.createDirectory(
      at: blocker.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data().write(to: blocker)
    let context = StorageContext.confined(to: folder.url)
    let flag = StorageContext.withValue(context) { Shared(.appStorage("flag"), default: false) }
    flag.withLock { $0 = true }
    #expect(await waitUntil { flag.saveError != nil }, "the failed background write is reported")
  }

  @Test("A preference removed from outside returns the value to its default")
  func outsideRemoval() async throws {
    @Shared(.appStorage("name")) var name = "default"
    $name.withLock { $0 = "Ada" }
    let store = try #require(
      StorageContext.current.preferences(suiteName: nil) as? InMemoryPreferences)
    store.setFromOutside(nil, forKey: "name")
    try await $name.flush()
    #expect(name == "default")
    store.setFromOutside(.string("Grace"), forKey: "name")
    try await $name.flush()
    #expect(name == "Grace")
  }
}
