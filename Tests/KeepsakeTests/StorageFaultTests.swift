import Foundation
@_spi(Testing) import Keepsake
import Synchronization
import Testing

/// Drives the data-safety rules through faults in each primitive file operation: after every
/// fault the file holds the complete old value or the complete new one, the error is visible,
/// and the next save after the fault clears succeeds.
@Suite("Storage under faults")
struct StorageFaultTests {
  struct Note: Codable, Equatable, Sendable {
    var id: Int
    var text: String
  }

  static let url = URL(fileURLWithPath: "/app/notes.json")
  static let old = [Note(id: 1, text: "old ✅")]
  static let new = [Note(id: 1, text: "old ✅"), Note(id: 2, text: "new 🆕")]

  static let reasons: [FileSystemError.Reason] = [.diskFull, .permissionDenied, .ioError]
  /// The steps of a durable save, each failed in turn, with what the file must hold after.
  enum SaveStep: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case writeTemporary, flushTemporary, rename, flushFolder

    var operation: FileOperation {
      switch self {
      case .writeTemporary: return .write
      case .flushTemporary, .flushFolder: return .fsync
      case .rename: return .rename
      }
    }

    /// Whether the step works on `path` (the temporary file, the target or its folder).
    func matches(_ path: String) -> Bool {
      switch self {
      case .writeTemporary, .flushTemporary: return path.contains(".keepsake-tmp-")
      case .rename: return path == StorageFaultTests.url.path
      case .flushFolder: return path == StorageFaultTests.url.deletingLastPathComponent().path
      }
    }

    /// Whether the new value is in the file after this step failed: only a failure after the
    /// rename (flushing the folder) leaves it, reported, since the rename already happened.
    var leavesNewFile: Bool { self == .flushFolder }

    var testDescription: String { rawValue }
  }

  /// Fails every `operation` on any path while it is armed.
  ///
  /// NB: not one-shot: a coalesced background save may run before the test's explicit save on a
  /// loaded machine, and both must meet the fault for the test to be deterministic.
  final class SwitchableFault: Sendable {
    let operation: FileOperation
    let fault: FileSystemFault
    let paths: @Sendable (String) -> Bool
    let armed = Mutex(false)
    let fired = Mutex(0)

    init(
      _ operation: FileOperation, _ fault: FileSystemFault,
      paths: @escaping @Sendable (String) -> Bool = { _ in true }
    ) {
      self.operation = operation
      self.fault = fault
      self.paths = paths
    }

    var handler: FileSystemFaultHandler {
      { [self] operation, path in
        guard operation == self.operation, paths(path) else { return nil }
        guard armed.withLock({ $0 }) else { return nil }
        fired.withLock { $0 += 1 }
        return fault
      }
    }
  }

  func seededDisk() throws -> InMemoryFileSystem {
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    disk.setContents(try JSONEncoder().encode(Self.old), at: Self.url)
    return disk
  }

  func stored(_ disk: InMemoryFileSystem) throws -> [Note] {
    let bytes = try #require(try disk.contents(of: Self.url))
    return try JSONDecoder().decode([Note].self, from: bytes)
  }

  @Test(
    "A failed save leaves a complete value, reports the error, and the next save succeeds",
    arguments: SaveStep.allCases, reasons)
  func saveFault(_ step: SaveStep, _ reason: FileSystemError.Reason) async throws {
    let disk = try seededDisk()
    let fault = SwitchableFault(step.operation, .fail(reason), paths: step.matches)
    disk.faultHandler = fault.handler
    @Shared(.fileStorage(Self.url)) var notes: [Note] = []
    #expect(notes == Self.old)

    $notes.withLock { $0 = Self.new }
    fault.armed.withLock { $0 = true }
    await #expect(throws: SharedSaveError.self) { try await $notes.save() }
    fault.armed.withLock { $0 = false }
    #expect(fault.fired.withLock { $0 } >= 1)
    let afterFault = try stored(disk)
    if step.leavesNewFile {
      #expect(afterFault == Self.new, "the rename happened; the folder flush failed after it")
    } else {
      #expect(afterFault == Self.old, "a fault before the rename keeps the old file")
    }
    guard case .writeFailed(_, let underlying)? = $notes.saveError else {
      Issue.record("saveError should carry the write failure")
      return
    }
    #expect((underlying as? FileSystemError)?.reason == reason)
    #expect(disk.files.keys.allSatisfy { !$0.contains(".keepsake-tmp-") }, "no temporary file")

    try await $notes.save()
    #expect(try stored(disk) == Self.new)
    #expect($notes.saveError == nil)
  }

  @Test("A short write never reaches the file")
  func shortWrite() async throws {
    let disk = try seededDisk()
    let fault = SwitchableFault(.write, .shortWrite(written: 7))
    disk.faultHandler = fault.handler
    @Shared(.fileStorage(Self.url)) var notes: [Note] = []
    $notes.withLock { $0 = Self.new }
    fault.armed.withLock { $0 = true }
    await #expect(throws: SharedSaveError.self) { try await $notes.save() }
    fault.armed.withLock { $0 = false }
    #expect(try stored(disk) == Self.old)
    try await $notes.save()
    #expect(try stored(disk) == Self.new)
  }

  @Test("A failed background save is retried by the next flush", arguments: reasons)
  func backgroundSaveFault(_ reason: FileSystemError.Reason) async throws {
    let disk = try seededDisk()
    let fault = SwitchableFault(.rename, .fail(reason))
    disk.faultHandler = fault.handler
    @Shared(.fileStorage(Self.url)) var notes: [Note] = []
    fault.armed.withLock { $0 = true }
    $notes.withLock { $0 = Self.new }
    await #expect(throws: SharedSaveError.self) { try await $notes.flush() }
    fault.armed.withLock { $0 = false }
    #expect($notes.saveError != nil)
    #expect(try stored(disk) == Self.old)
    $notes.withLock { $0.append(Note(id: 3, text: "third")) }
    try await $notes.flush()
    #expect($notes.saveError == nil)
    #expect(try stored(disk).count == 3)
  }

  @Test("A failed read is a load error and protects the file", arguments: reasons)
  func readFault(_ reason: FileSystemError.Reason) async throws {
    let disk = try seededDisk()
    let bytes = try #require(try disk.contents(of: Self.url))
    let fault = SwitchableFault(.read, .fail(reason))
    fault.armed.withLock { $0 = true }
    disk.faultHandler = fault.handler
    @Shared(.fileStorage(Self.url)) var notes: [Note] = []
    fault.armed.withLock { $0 = false }
    let loadError = try #require($notes.loadError)
    #expect((loadError.underlying as? FileSystemError)?.reason == reason)
    $notes.withLock { $0 = [Note(id: 9, text: "typed while unreadable")] }
    await #expect(throws: SharedSaveError.self) { try await $notes.flush() }
    #expect(try disk.contents(of: Self.url) == bytes)
    // Once the disk reads again, the change made meanwhile meets the stored value. These notes
    // cannot merge: ours is saved, and theirs is first kept as a conflict copy. Nothing is lost.
    try await $notes.load()
    #expect($notes.loadError == nil)
    #expect($notes.saveError == nil)
    #expect(notes == [Note(id: 9, text: "typed while unreadable")])
    #expect(try stored(disk) == notes)
    guard case .keptBoth(let copy) = $notes.lastConflict?.resolution else {
      Issue.record("the stored notes were not kept: \(String(describing: $notes.lastConflict))")
      return
    }
    #expect(try disk.contents(of: copy) == bytes)
  }

  @Test(
    "Quarantining fails safely: the damaged bytes stay in place",
    arguments: [FileOperation.write, .fsync, .rename])
  func quarantineFault(_ operation: FileOperation) async throws {
    let disk = try #require(StorageContext.current.fileSystem as? InMemoryFileSystem)
    let damaged = Data("{broken".utf8)
    disk.setContents(damaged, at: Self.url)
    @Shared(.fileStorage(Self.url)) var notes: [Note] = []
    let fault = SwitchableFault(operation, .fail(.diskFull))
    fault.armed.withLock { $0 = true }
    disk.faultHandler = fault.handler
    await #expect(throws: (any Error).self) { try await $notes.replaceUnreadableData() }
    #expect(try disk.contents(of: Self.url) == damaged)
  }
}
