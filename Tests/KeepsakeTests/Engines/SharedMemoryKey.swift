import Dispatch
import Foundation
import Synchronization

@testable import Keepsake

/// Stored data that several storage contexts share, in memory, as processes share a file: the
/// smallest kind of shared storage, written through the persistence protocol alone
/// (`CoordinatedKey`), with nothing else in the library told of it.
///
/// It keeps one document (JSON bytes, or none), a lock, the conflict copies and refused changes
/// kept beside it, and a log of the protocol's calls, so a test sees what the reference's
/// machine did with it.
final class SharedMemory: Sendable {
  /// What a context's key did, in order.
  enum Call: Equatable, Sendable {
    case lock, unlock, read, write
  }

  private struct State {
    var data: Data?
    /// Counts changes: a new version for every write and removal.
    var version: UInt64 = 0
    var copies: [Data] = []
    var unsaved: [Data] = []
    var log: [Call] = []
    var observers: [Int: @Sendable () -> Void] = [:]
    var nextObserver = 0
  }

  let name: String
  private let state = Mutex(State())
  private let held = DispatchSemaphore(value: 1)

  init(name: String, data: Data? = nil) {
    self.name = name
    state.withLock { $0.data = data }
  }

  /// The stored bytes, and their version.
  var current: (data: Data?, version: UInt64) { state.withLock { ($0.data, $0.version) } }
  /// The other sides of conflicts, kept as copies.
  var copies: [Data] { state.withLock { $0.copies } }
  /// The changes whose saves were refused, kept.
  var unsaved: [Data] { state.withLock { $0.unsaved } }
  /// Every call of the protocol so far.
  var log: [Call] { state.withLock { $0.log } }

  /// Replaces the stored bytes, as another program would (`nil` removes them), and tells
  /// every context; `stored` learns the new version first.
  func store(_ data: Data?, stored: (UInt64) -> Void = { _ in }) {
    let (version, observers) = state.withLock { state in
      state.data = data
      state.version += 1
      return (state.version, Array(state.observers.values))
    }
    stored(version)
    // NB: told outside the lock, as a watcher tells of a file's change after it.
    for observer in observers { observer() }
  }

  fileprivate func record(_ call: Call) { state.withLock { $0.log.append(call) } }

  fileprivate func keep(_ data: Data, unsaved: Bool) -> Int {
    state.withLock { state in
      if unsaved {
        state.unsaved.append(data)
        return state.unsaved.count
      }
      state.copies.append(data)
      return state.copies.count
    }
  }

  fileprivate func lock(timeout: Duration) throws -> FileLock {
    let nanoseconds =
      Int(timeout.components.seconds) * 1_000_000_000
      + Int(timeout.components.attoseconds / 1_000_000_000)
    guard held.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
      throw FileSystemError(
        .lock, path: "memory:\(name)",
        reason: .lockTimedOut(seconds: Int(timeout.components.seconds)))
    }
    record(.lock)
    return FileLock { [self] in
      record(.unlock)
      held.signal()
    }
  }

  fileprivate func observe(_ onChange: @escaping @Sendable () -> Void) -> StorageSubscription {
    let id = state.withLock { state in
      state.nextObserver += 1
      state.observers[state.nextObserver] = onChange
      return state.nextObserver
    }
    return StorageSubscription { [self] in
      _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }
  }
}

/// A key of a ``SharedMemory``'s document: a value shared by contexts as a file is by processes.
struct SharedMemoryKey<Value: Codable & Sendable>: CoordinatedKey {
  let memory: SharedMemory
  let merge: SharedMerge<Value>?
  let saveTiming: SaveTiming
  /// The version a reference last read or wrote (`nil`: none stored); each reference has its
  /// own (see `withOwnState()`).
  private var seen = Seen()

  init(_ memory: SharedMemory, saveInterval: Duration = .seconds(60)) {
    self.memory = memory
    self.merge = .conformance(of: Value.self)
    self.saveTiming = .coalesced(interval: saveInterval)
  }

  var id: SharedKeyID { SharedKeyID(kind: "sharedMemory", name: memory.name) }
  var url: URL { URL(fileURLWithPath: "/memory/\(memory.name)") }

  func withOwnState() -> Self {
    var copy = self
    copy.seen = Seen()
    return copy
  }

  func load(in context: StorageContext) throws -> Value? {
    let (data, version) = memory.current
    guard let data else {
      seen.version.withLock { $0 = nil }
      return nil
    }
    let value = try JSONDecoder().decode(Value.self, from: data)
    seen.version.withLock { $0 = version }
    return value
  }

  func save(_ value: Value, in context: StorageContext) throws {
    try write(value, in: context)
  }

  func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    memory.observe(onChange)
  }

  func lock(in context: StorageContext, timeout: Duration) throws -> FileLock {
    try memory.lock(timeout: timeout)
  }

  func storedChange(in context: StorageContext, rereading: Bool) throws -> StoredChange<Value> {
    memory.record(.read)
    let (data, version) = memory.current
    let seen = seen.version.withLock { $0 }
    guard let data else { return seen == nil ? .unchanged : .deleted }
    if seen == version && !rereading { return .unchanged }
    let value = try JSONDecoder().decode(Value.self, from: data)
    return .replaced(value, data: data, identity: Self.identity(version, data))
  }

  func remember(_ identity: FileIdentity?) {
    seen.version.withLock { $0 = identity?.inode }
  }

  func write(_ value: Value, in context: StorageContext) throws {
    let data = try JSONEncoder().encode(value)
    memory.record(.write)
    // NB: remembered before anyone is told, so this reference's own watch finds nothing new.
    memory.store(data) { version in seen.version.withLock { $0 = version } }
  }

  func keepConflictCopy(_ data: Data, in context: StorageContext) throws -> KeptConflictCopy {
    let number = memory.keep(data, unsaved: false)
    return KeptConflictCopy(url: url.appendingPathExtension("copy-\(number)"), pruned: [])
  }

  func mergeByField(base: Value, ours: Value, theirs: Value) -> FieldMergeOutcome<Value> {
    .notApplicable
  }

  func keepUnsavedChange(
    _ value: Value, base: Value?, steps: [Value], reason: String, superseding earlier: URL?,
    in context: StorageContext
  ) throws -> URL {
    let number = memory.keep(try JSONEncoder().encode(value), unsaved: true)
    return url.appendingPathExtension("unsaved-\(number)")
  }

  private static func identity(_ version: UInt64, _ data: Data) -> FileIdentity {
    FileIdentity(inode: version, size: Int64(data.count), modified: 0)
  }
}

/// What a reference of a ``SharedMemoryKey`` last read or wrote.
private final class Seen: Sendable {
  let version = Mutex<UInt64?>(nil)
}
