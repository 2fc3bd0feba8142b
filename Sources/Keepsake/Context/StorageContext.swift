import Foundation
import Synchronization

/// Where shared keys keep their data: a file system, preferences suites and the references of
/// every key, as one unit.
///
/// In an app, keys use ``live``: the real disk and the platform's preferences. When the process is
/// running tests, every test gets isolated storage of its own: an in-memory file system, in-memory
/// preferences and fresh in-memory keys, without writing anything: see ``current``. A context can
/// also be set for a scope with ``withValue(_:operation:)-(_,()->R)``.
///
/// Two ``Shared`` values built from keys with the same identity in the same context are the same
/// reference. A reference keeps the context it was created in, so work that leaves the task tree
/// (a detached task, a Dispatch callback, a file watcher) still reads and writes the same storage.
public final class StorageContext: Sendable, CustomStringConvertible {
  /// The file system `.fileStorage` keys read and write.
  package let fileSystem: any FileSystem
  /// A name for diagnostics, such as `live` or the identity of a test.
  public let name: String
  /// Where references run their persistence, and the clock their timers read.
  let scheduler: any PersistenceScheduler
  /// Whether this context is isolated storage, which never touches the live storage.
  ///
  /// Isolated storage never reads or writes the user's files and preferences, whether it is in
  /// memory (``inMemory(name:clock:)``) or confined to a temporary folder
  /// (``confined(to:name:)``). Isolated contexts are never flushed at exit.
  public let isIsolated: Bool

  private let makePreferences: @Sendable (String?) -> any PreferencesStore
  private let suites = Mutex<[String: any PreferencesStore]>([:])
  let references = Mutex<[SharedKeyID: ReferenceSlot]>([:])
  /// Per folder a key was opened in: the temporary files dead writers left there, found by one
  /// listing (see `TemporaryFile.removeAbandoned(besides:path:in:)`).
  let abandonedTemporaryFiles = Mutex<[String: [String]]>([:])
  /// The changes kept in the state folder, away from their files, found by one listing when
  /// the first file key opens (see `FileStorageKey.bringBackChangesKeptAway(in:)`).
  let changesKeptAway = Mutex<[String]?>(nil)
  /// Per folder a file key was opened in: the folder with its links resolved, so a key's
  /// creation resolves only its own name (see `LocalFileSystem.resolve(_:path:folders:)`).
  let resolvedFolders = ResolvedFolders()
  /// The test store's change tracker, when one is installed (see ``SharedChangeTracker``).
  @usableFromInline let changeTracking = SharedChangeTrackerSlot()
  /// Whether this is the context of work under test that no test can be found for.
  @usableFromInline let isUnattributed: Bool
  /// For such a context: whether a test has been seen running, so that a key made here is a
  /// leak to report rather than a hosted app's key made before its tests.
  let testsHaveStarted: @Sendable () -> Bool

  /// Creates a context from its substrates.
  ///
  /// - Parameters:
  ///   - name: A name for diagnostics.
  ///   - fileSystem: The file system for `.fileStorage` keys.
  ///   - isIsolated: Whether the context is isolated storage, which never touches the live
  ///     storage (see ``isIsolated``).
  ///   - scheduler: Where references run their persistence, and the clock its timers read.
  ///   - preferences: Makes the store of a preferences suite (`nil` is the default suite); called
  ///     once per suite.
  package init(
    name: String,
    fileSystem: any FileSystem,
    isIsolated: Bool,
    scheduler: any PersistenceScheduler = StorageClock.live.scheduler,
    unattributedSince testsHaveStarted: (@Sendable () -> Bool)? = nil,
    preferences: @escaping @Sendable (_ suiteName: String?) -> any PreferencesStore
  ) {
    self.isUnattributed = testsHaveStarted != nil
    self.testsHaveStarted = testsHaveStarted ?? { false }
    self.name = name
    self.fileSystem = fileSystem
    self.isIsolated = isIsolated
    self.scheduler = scheduler
    self.makePreferences = preferences
  }

  /// The preferences store of a suite (`nil` for the default suite), made once and then reused.
  func preferences(suiteName: String?) -> any PreferencesStore {
    suite(named: suiteName ?? "") { makePreferences(suiteName) }
  }

  /// The preferences a key given a `UserDefaults` instance (`store:`) uses here: the instance
  /// itself in the live context; anywhere else this context's own store for a suite named
  /// after it, so a test, a preview or a demo context never writes the real defaults.
  func preferences(of store: UserDefaultsReference) -> any PreferencesStore {
    guard self === StorageContext.live else { return preferences(suiteName: store.name) }
    // NB: "\u{1}" keeps these apart from suites named by `suiteName:`.
    return suite(named: "\u{1}" + store.name) { UserDefaultsPreferences(store.defaults) }
  }

  /// The store kept under `name`, made by `make` the first time (once: under the lock).
  private func suite(
    named name: String, make: () -> any PreferencesStore
  ) -> any PreferencesStore {
    suites.withLock { suites in
      if let store = suites[name] { return store }
      let store = make()
      suites[name] = store
      return store
    }
  }

  public var description: String { "StorageContext(\(name))" }

  // MARK: - Contexts

  /// The real disk and the platform's preferences: `UserDefaults` on Apple platforms,
  /// `FilePreferences` on Linux.
  public static let live = StorageContext(
    name: "live", fileSystem: LocalFileSystem(), isIsolated: false
  ) { suiteName in
    #if canImport(Darwin)
      return UserDefaultsPreferences(suiteName: suiteName)
    #else
      return FilePreferences(url: FilePreferences.defaultURL(suiteName: suiteName))
    #endif
  }

  /// Fresh isolated storage in memory: what each test gets.
  ///
  /// It has an empty in-memory file system, in-memory preferences and no references.
  ///
  /// - Parameters:
  ///   - name: A name for diagnostics.
  ///   - clock: The clock coalesced saves run on; a test that checks when saves happen passes
  ///     ``StorageClock/manual()`` and moves it by hand.
  public static func inMemory(
    name: String = "in memory", clock: StorageClock = .live
  ) -> StorageContext {
    inMemory(name: name, fileSystem: InMemoryFileSystem(), clock: clock)
  }

  /// Fresh isolated storage in memory on `fileSystem`: for tests that share one in-memory file
  /// system between contexts, or wrap it.
  package static func inMemory(
    name: String = "in memory", fileSystem: any FileSystem, clock: StorageClock = .live,
    unattributedSince testsHaveStarted: (@Sendable () -> Bool)? = nil
  ) -> StorageContext {
    StorageContext(
      name: name, fileSystem: fileSystem, isIsolated: true, scheduler: clock.scheduler,
      unattributedSince: testsHaveStarted
    ) { _ in
      InMemoryPreferences()
    }
  }

  /// Confined storage: the real file system and file preferences, confined to `folder`.
  ///
  /// Every absolute path a key names is placed under the folder. For tests that deliberately
  /// exercise the real disk; the context is isolated storage (``isIsolated``).
  public static func confined(to folder: URL, name: String? = nil) -> StorageContext {
    let fileSystem = ConfinedFileSystem(root: folder)
    return StorageContext(
      name: name ?? "confined to \(folder.path)", fileSystem: fileSystem, isIsolated: true
    ) { suiteName in
      FilePreferences(url: fileSystem.confine(FilePreferences.defaultURL(suiteName: suiteName)))
    }
  }

  // MARK: - Current context

  @TaskLocal static var scoped: StorageContext?

  /// The context keys use right now.
  ///
  /// In order: a context set with ``withValue(_:operation:)-(_,()->R)`` (or a testing trait);
  /// when the process runs tests, the context of the running test (Swift Testing tests are found
  /// through `Test.current`, XCTest cases through `KeepsakeTesting`); when it runs tests but no
  /// test can be found (a detached task, or a hosted test run's host app before the test bundle
  /// loaded), one in-memory context shared by such work; in an Xcode preview, one in-memory
  /// context for the preview; otherwise the one given to ``setAppDefault(_:)``, else ``live``.
  /// Nothing under test or in a preview reaches ``live`` unless a test sets it.
  public static var current: StorageContext {
    if let scoped { return scoped }
    // NB: an app decided once that it runs no tests; this is one load and one comparison.
    if !TestDetector.isLiveProcess, let isolated = TestDetector.process.isolatedContext() {
      return isolated
    }
    return appDefault.withLock { $0 } ?? live
  }

  /// ``current``, for a key being made at the given place: a key made under test where no test
  /// can be found is reported there (see `UnattributedKeys`).
  @inlinable
  static func current(
    making keyID: SharedKeyID, fileID: StaticString, filePath: StaticString, line: UInt,
    column: UInt
  ) -> StorageContext {
    let context = current
    if context.isUnattributed {
      UnattributedKeys.report(
        keyID, in: context,
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    return context
  }

  private static let appDefault = Mutex<StorageContext?>(nil)

  /// Makes `context` the storage of the whole app, instead of ``live``: for demo modes, UI-test
  /// launches and screenshots, where the app must not read or write the user's real data.
  ///
  /// Call it once, at launch, before any key is used, for example:
  ///
  /// ```swift
  /// if CommandLine.arguments.contains("--in-memory-storage") {
  ///   StorageContext.setAppDefault(.inMemory(name: "demo"))
  /// }
  /// ```
  ///
  /// Under test it changes nothing: every test keeps its own storage. Xcode previews get
  /// in-memory storage without it (`XCODE_RUNNING_FOR_PREVIEWS`).
  ///
  /// - Precondition: Not called before in this process (a second call would leave keys made
  ///   before it on the first storage).
  public static func setAppDefault(_ context: StorageContext) {
    appDefault.withLock { current in
      precondition(
        current == nil,
        "StorageContext.setAppDefault(_:) was already called (with \(current.map(\.name) ?? "")); "
          + "call it once, at launch, before any key is used.")
      current = context
    }
  }

  /// Runs `operation` with `context` as the ``current`` context.
  public static func withValue<R>(
    _ context: StorageContext, operation: () throws -> R
  ) rethrows -> R {
    try $scoped.withValue(context, operation: operation)
  }

  /// Runs `operation` with `context` as the ``current`` context.
  public static func withValue<R>(
    _ context: StorageContext,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
  ) async rethrows -> R {
    try await $scoped.withValue(context, operation: operation, isolation: isolation)
  }
}
