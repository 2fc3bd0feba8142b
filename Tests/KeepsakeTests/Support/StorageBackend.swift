import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// The storage a test body runs against, so one body checks the in-memory file system and the real
/// one alike, the way GRDB runs one body against each kind of database.
enum StorageBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
  /// The test's own in-memory file system.
  case inMemory
  /// The real file system, confined to a fresh temporary folder.
  case confined

  var testDescription: String { rawValue }

  /// Runs `body` with a fresh context of this kind as the current storage.
  func run(_ body: (BackendDisk) async throws -> Void) async throws {
    switch self {
    case .inMemory:
      let context = StorageContext.inMemory(name: "in-memory backend")
      try await StorageContext.withValue(context) { try await body(BackendDisk(context: context)) }
    case .confined:
      let folder = try TemporaryFolder()
      let context = StorageContext.confined(to: folder.url)
      try await StorageContext.withValue(context) {
        try await body(BackendDisk(context: context, folder: folder))
      }
      // NB: written before the folder goes, as far as it can be (a test may leave a change its
      // key refuses): a write after it would make the folder again.
      try? await context.flush()
      try? context.preferences(suiteName: nil).flush()
    }
  }
}

/// A test's view of its backend's disk (in memory or real): seeding and reading files as another
/// process would.
///
/// Not KeepsakeTesting's `TestDisk`, which is the in-memory disk's alone.
struct BackendDisk: Sendable {
  let context: StorageContext
  /// Keeps a real disk's folder alive for the test.
  var folder: TemporaryFolder?

  var inMemory: InMemoryFileSystem? { context.fileSystem as? InMemoryFileSystem }

  /// Replaces the file at `url` atomically, as another process does.
  func write(_ data: Data, to url: URL) throws {
    try context.fileSystem.writeAtomically(data, to: url)
  }

  func contents(of url: URL) throws -> Data? { try context.fileSystem.contents(of: url) }

  func names(in folder: URL) throws -> [String] {
    try context.fileSystem.contentsOfDirectory(at: folder)
  }

  /// Waits until `condition` (on observable state of `shared`) holds, after flushing `shared`:
  /// an in-memory file system tells watchers at once, a real one through the kernel, a moment
  /// later.
  func eventually<Value>(
    _ shared: Shared<Value>, _ condition: @escaping @Sendable () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await shared.flush()
    if !(await waitUntil(condition)) {
      Issue.record("the condition never held", sourceLocation: sourceLocation)
    }
  }
}
