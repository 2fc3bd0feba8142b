import Foundation
import Keepsake
import Testing

/// A test trait that runs each test (or each test of a suite) in isolated storage of its own.
///
/// Every test already gets its own storage with nothing to set up; this trait is for the cases
/// automatic detection cannot tell apart (the same Swift Testing test run twice in one process,
/// which keeps its identity) and for confined storage: the real disk, confined to a temporary
/// folder.
///
/// ```swift
/// @Suite(.isolatedStorage) struct InboxTests { ... }
/// @Test(.isolatedStorage(.confined)) func writesARealFile() async throws { ... }
/// ```
public struct IsolatedStorageTrait: TestTrait, SuiteTrait, TestScoping {
  /// Which isolated storage each test gets.
  public enum Kind: Sendable {
    /// In-memory storage: an in-memory file system, in-memory preferences and fresh in-memory
    /// keys (`StorageContext.inMemory(name:)`).
    case inMemory
    /// Confined storage: the real file system and file preferences, confined to a fresh
    /// temporary folder that is removed after the test (``withConfinedStorage(isolation:_:)``).
    case confined
  }

  let kind: Kind

  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite's own scope adds nothing; each of its tests gets a fresh context.
    guard testCase != nil || !test.isSuite else { return try await function() }
    switch kind {
    case .inMemory:
      try await StorageContext.withValue(.inMemory(name: "test \(test.name)")) {
        try await function()
      }
    case .confined:
      try await withConfinedStorage { _ in try await function() }
    }
  }
}

extension Trait where Self == IsolatedStorageTrait {
  /// Fresh in-memory storage for each test.
  public static var isolatedStorage: Self { IsolatedStorageTrait(kind: .inMemory) }

  /// Storage of the given kind for each test.
  public static func isolatedStorage(_ kind: IsolatedStorageTrait.Kind) -> Self {
    IsolatedStorageTrait(kind: kind)
  }
}

/// Runs `body` in confined storage: the real file system and file preferences, confined to a
/// fresh temporary folder that is removed after.
///
/// Keys keep their absolute paths; each is placed under the folder, so a test exercises the real
/// disk (atomic writes, permissions, watchers) without touching the developer's files.
///
/// - Parameters:
///   - body: Receives the temporary folder.
///   - isolation: The actor `body` runs on; leave the default, the caller's.
public func withConfinedStorage<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (URL) async throws -> R
) async rethrows -> R {
  // NB: the folder is made by the confined file system on the first write, so this cannot fail.
  let folder = TemporaryFolder(unmade: ())
  defer { withExtendedLifetime(folder) {} }
  return try await StorageContext.withValue(.confined(to: folder.url)) {
    try await body(folder.url)
  }
}

/// Runs `body` with `context` as the storage of every key it uses.
///
/// - Parameters:
///   - context: The storage, such as `.inMemory(name:)` or `.confined(to:)`.
///   - isolation: The actor `body` runs on; leave the default, the caller's.
///   - body: The work whose keys use `context`.
public func withStorage<R>(
  _ context: StorageContext,
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async rethrows -> R {
  try await StorageContext.withValue(context) { try await body() }
}
