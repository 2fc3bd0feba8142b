import FaultInjection
import Foundation
@_spi(Testing) import Keepsake

/// The in-memory disk of a test's storage: seed it with the files an older version of the app
/// or another process would have written, read what was saved, and make its operations fail.
///
/// Every test gets a disk of its own (see `StorageContext.current`); nothing on it ever reaches
/// the developer's files. Reach the running test's disk with ``current``, or the disk a `Shared`
/// was created on with ``init(_:)``:
///
/// ```swift
/// @Test func aVersion1FileIsMigrated() async throws {
///   let disk = try #require(TestDisk.current)
///   disk.setContents(v1Bytes, at: draftsURL)
///
///   @Shared(.drafts) var drafts = []
///   #expect(drafts.count == 3)
/// }
/// ```
///
/// Storage faults are scripted in the text form of `FaultPlan.init(parsing:)`, the way a mock's
/// are: see ``injectFaults(_:)``.
public struct TestDisk: Sendable {
  /// The disk.
  let fileSystem: InMemoryFileSystem

  /// The disk `fileSystem` is.
  init(_ fileSystem: InMemoryFileSystem) {
    self.fileSystem = fileSystem
  }

  /// The disk of `context`, or `nil` when its files are not kept in memory (the live context, or
  /// the real disk confined to a folder by `withConfinedStorage`).
  ///
  /// ```swift
  /// let disk = try #require(TestDisk($drafts.storageContext))
  /// ```
  public init?(_ context: StorageContext) {
    guard let fileSystem = context.fileSystem as? InMemoryFileSystem else { return nil }
    self.init(fileSystem)
  }

  /// The disk of the storage keys use right now: the running test's, or `nil` when its files are
  /// not kept in memory.
  public static var current: TestDisk? { TestDisk(.current) }

  /// Every file on the disk, by its standardized path.
  public var files: [String: Data] { fileSystem.files }

  /// The bytes of the file at `url`, or `nil` when there is none.
  ///
  /// No fault applies.
  public func contents(of url: URL) -> Data? {
    fileSystem.files[url.standardizedFileURL.path]
  }

  /// Sets a file's bytes directly (or removes the file, for `nil`), as another process or an
  /// older version of the app would have.
  ///
  /// Keys watching the file are told, as they would be of another process's write, unless
  /// `notifyingWatchers` is false. No fault applies.
  public func setContents(_ data: Data?, at url: URL, notifyingWatchers: Bool = true) {
    fileSystem.setContents(data, at: url, notifyingWatchers: notifyingWatchers)
  }

  /// How many atomic replaces of `url` completed: each one is one durable write.
  public func completedWrites(of url: URL) -> Int {
    fileSystem.completedWrites(of: url)
  }

  /// Fails this disk's primitive operations as fault plans in the mocks' text form say.
  ///
  /// ```swift
  /// let faults = try disk.injectFaults("write=1*off->throw(diskFull)->off; rename=throw(ioError)")
  /// // ... the second write fails with a full disk, every rename with an I/O error
  /// #expect(faults.callCount(.write) == 3)
  /// ```
  ///
  /// Methods are `FileOperation` names (`read`, `write`, `fsync`, `rename`, `remove`,
  /// `createFolder`, `list`, `lock`). Besides the ready-made errors, `throw(...)` takes
  /// `diskFull`, `permissionDenied` and `ioError`; any other error fails the operation with an
  /// I/O error. Delays and gates do not apply (file operations are synchronous). The plans
  /// replace any plans injected before.
  ///
  /// - Returns: The injector, whose log shows every operation the disk was asked for.
  /// - Throws: `FaultPlanParseError` when the text cannot be read; nothing is installed then.
  @discardableResult
  public func injectFaults(_ text: String) throws(FaultPlanParseError) -> FaultInjector<
    FileOperation
  > {
    try fileSystem.injectFaults(text)
  }
}
