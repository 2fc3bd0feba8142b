import Foundation
@_spi(Testing) import Keepsake

/// The one disk every simulated process shares: an ``InMemoryFileSystem``, plus what a real disk
/// has that it does not model (inodes an in-place writer keeps writing to, watcher events that
/// arrive later), the fault plans of a schedule, and the record of every version of the files.
///
/// NB: `@unchecked Sendable`: one schedule runs on one thread (see ``SimulatedClockwork``).
final class SimulatedDisk: @unchecked Sendable {
  private struct Watcher {
    var id: Int
    var owner: SimulatedProcess
    var path: String
    var onChange: @Sendable () -> Void
    var pending = false
  }

  private struct ArmedFault {
    var operation: FileOperation
    var fault: FileSystemFault
    var remaining: Int
  }

  let memory = InMemoryFileSystem()
  /// Where facts go, in order.
  let facts: SimulationRecord
  /// The current version number of each file.
  private(set) var versions = [0, 0]
  /// Whether the write that last created each file (its name empty before) was one its app asked
  /// for (a request, a transaction, an exit), rather than a save Keepsake started on its own.
  var gapFillerAsked = [false, false]
  private var inodes: [String: Int] = [:]
  /// The lock each file's lock file was last taken with (see ``removeLockFile(of:)``).
  private var lockHolders: [String: FileLock] = [:]
  /// Modification times writers put back (see ``putBackModifiedTime(_:at:)``).
  private var keptModifiedTimes: [String: Int64] = [:]
  private var nextInode = 1
  private var watchers: [Watcher] = []
  private var nextWatcher = 0
  private var armed: [ArmedFault] = []
  /// How many injected faults hit an operation.
  private(set) var faultsHit = 0

  /// The simulation's clock.
  let now: @Sendable () -> Duration
  /// Called when a save of a file is about to rename its file in (see
  /// `OutsideWriter.landDuringSave(_:)`).
  var savingFile: (SimulatedFile) -> Void = { _ in }
  /// Called when a save of a file has just swapped its file in (see
  /// `OutsideWriter.landAfterSave(_:)`).
  var savedFile: (SimulatedFile) -> Void = { _ in }

  init(facts: SimulationRecord, now: @escaping @Sendable () -> Duration) {
    self.facts = facts
    self.now = now
    memory.faultHandler = { [unowned self] operation, _ in fault(for: operation) }
  }

  // MARK: - Files

  // NB: the library names files by URLs built from the keys' own (clean, absolute) URLs, so
  // their paths need no standardizing, which costs system calls on Linux.
  static func path(_ url: URL) -> String { url.path }

  func bytes(_ file: SimulatedFile) -> Data? { memory.files[file.path] }

  func file(at path: String) -> SimulatedFile? {
    if path == SimulatedFile.items.path { return .items }
    if path == SimulatedFile.notes.path { return .notes }
    return nil
  }

  /// The file at `path` changed: a new version is recorded, and its watchers will hear of it.
  func changed(_ path: String, by writer: SimulationFact.Writer, basedOn: Int?) {
    keptModifiedTimes[path] = nil
    if let file = file(at: path) {
      versions[file.rawValue] += 1
      facts.append(
        .version(
          file: file.rawValue, number: versions[file.rawValue], bytes: memory.files[path],
          writer: writer, basedOn: basedOn))
    }
    for index in watchers.indices where watchers[index].path == path {
      watchers[index].pending = true
    }
  }

  /// Writes bytes as another program does, with no fault and no lock.
  func write(_ data: Data?, at path: String, by style: OutsideStyle, basedOn: Int?) {
    memory.setContents(data, at: URL(fileURLWithPath: path), notifyingWatchers: false)
    changed(path, by: .outside(style), basedOn: basedOn)
  }

  /// Writes a temporary file nobody is told of (an outside writer's, or a killed writer's).
  func writeUnseen(_ data: Data?, at path: String) {
    memory.setContents(data, at: URL(fileURLWithPath: path), notifyingWatchers: false)
  }

  // MARK: - Inodes

  /// The inode the file at `path` has now (an in-place writer keeps writing to the one it
  /// opened, even after a rename put another file at the path).
  func inode(of path: String) -> Int? { inodes[path] }

  /// A rename or a create put a new inode at `path`.
  func replaceInode(at path: String) {
    inodes[path] = nextInode
    nextInode += 1
  }

  func removeInode(at path: String) { inodes[path] = nil }

  // MARK: - Locks

  /// A process took the lock of the file at `path` with `lock`.
  func tookLock(of path: String, _ lock: FileLock) { lockHolders[path] = lock }

  /// The lock file of the file at `path` is removed: the next process to lock the file makes a
  /// new one and gets its lock, while the holder still believes it holds the lock. (Releasing
  /// the holder's lock is how the in-memory disk models this; the holder's own release later
  /// does nothing, as a lock on a removed file keeps nobody out.)
  func removeLockFile(of path: String) {
    lockHolders.removeValue(forKey: path)?.release()
  }

  // MARK: - Times

  /// The identity a process sees of the file at `path`: its inode, its size, a modification
  /// time a writer may put back, and a change time every write moves (the in-memory file
  /// system's version of the path, which changes with every write).
  func identity(at url: URL) throws -> FileIdentity? {
    guard let found = try memory.identity(of: url) else { return nil }
    let path = Self.path(url)
    guard file(at: path) != nil, let inode = inodes[path] else { return found }
    return FileIdentity(
      inode: UInt64(inode), size: found.size, modified: modifiedTime(at: path),
      changed: Int64(found.inode))
  }

  /// The modification time of the file at `path`: its last write's, unless a writer put an
  /// earlier one back.
  func modifiedTime(at path: String) -> Int64 {
    if let kept = keptModifiedTimes[path] { return kept }
    return (try? memory.identity(of: URL(fileURLWithPath: path))).map { Int64($0.inode) } ?? 0
  }

  /// A writer put the modification time of the file at `path` back to `time`, as `cp -p` does.
  func putBackModifiedTime(_ time: Int64, at path: String) { keptModifiedTimes[path] = time }

  // MARK: - Watchers

  func watch(
    _ path: String, by owner: SimulatedProcess, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription {
    let id = nextWatcher
    nextWatcher += 1
    watchers.append(Watcher(id: id, owner: owner, path: path, onChange: onChange))
    return StorageSubscription { [weak self] in self?.watchers.removeAll { $0.id == id } }
  }

  func hasNotifications(for owner: SimulatedProcess) -> Bool {
    watchers.contains { $0.pending && $0.owner === owner }
  }

  /// Delivers the events waiting for `owner`'s watchers, in the order they were registered.
  func deliver(to owner: SimulatedProcess) {
    var callbacks: [@Sendable () -> Void] = []
    for index in watchers.indices where watchers[index].pending && watchers[index].owner === owner {
      watchers[index].pending = false
      callbacks.append(watchers[index].onChange)
    }
    for callback in callbacks where owner.isAlive { callback() }
  }

  func removeWatchers(of owner: SimulatedProcess) {
    watchers.removeAll { $0.owner === owner }
  }

  // MARK: - Faults

  /// The next `count` operations of kind `operation` fail with `fault`.
  func arm(_ operation: FileOperation, _ fault: FileSystemFault, count: Int) {
    armed.append(ArmedFault(operation: operation, fault: fault, remaining: count))
  }

  /// The disk heals: no fault is armed any more.
  func disarm() { armed.removeAll() }

  private func fault(for operation: FileOperation) -> FileSystemFault? {
    guard let index = armed.firstIndex(where: { $0.operation == operation }) else { return nil }
    let fault = armed[index].fault
    armed[index].remaining -= 1
    if armed[index].remaining <= 0 { armed.remove(at: index) }
    faultsHit += 1
    return fault
  }
}

/// The facts of one schedule, in order.
///
/// NB: `@unchecked Sendable`: one schedule runs on one thread (see ``SimulatedClockwork``).
final class SimulationRecord: @unchecked Sendable {
  private(set) var all: [SimulationFact] = []

  func append(_ fact: SimulationFact) { all.append(fact) }
}
