import Foundation
import Synchronization

/// A disk that lives in memory, exclusive to its owner: the file system of a test.
///
/// It follows the same atomic protocol as ``LocalFileSystem`` step by step (write a temporary
/// file, flush it, rename it, flush the folder) so a fault injected into any one step leaves the
/// same on-"disk" state a real failure would. Faults come from a ``FileSystemFaultHandler``
/// consulted before every primitive operation.
///
/// ```swift
/// let disk = InMemoryFileSystem()
/// disk.faultHandler = { operation, _ in operation == .rename ? .fail(.diskFull) : nil }
/// ```
package final class InMemoryFileSystem: FileSystem {
  private struct State {
    var files: [String: Data] = [:] {
      didSet { version &+= 1 }
    }
    /// Stands in for inodes: every change of the disk gets a new number.
    var version: UInt64 = 0
    var identities: [String: UInt64] = [:]
    var folders: Set<String> = ["/"]
    var watchers = KeyedObservers()
    /// Watches of a folder's entries by name (sync engines' conflict copies), by id.
    var entryWatchers:
      [Int: (folder: String, matching: @Sendable (String) -> Bool, onChange: @Sendable () -> Void)] =
        [:]
    var nextEntryWatcher = 0
    var operations: [FileSystemOperationRecord] = []
    var faultHandler: FileSystemFaultHandler?
    var downloadRequests: [String] = []
    /// On a case-insensitive disk: each file's path as first spelled, by its folded path.
    var spellings: [String: String] = [:]
  }

  private let state = Mutex(State())
  private let locks = InMemoryFileLocks()
  /// Whether names ignore case (and Unicode normalization), as on APFS's default volumes.
  private let caseInsensitive: Bool

  /// Creates an empty disk; `caseInsensitive` makes two spellings of a name one file, which
  /// keeps the name it was first given, as APFS does by default.
  package init(caseInsensitive: Bool = false) {
    self.caseInsensitive = caseInsensitive
  }

  /// Whether names ignore case: this disk's own setting, for every folder.
  package func foldsCase(inFolder path: String, folders: ResolvedFolders) -> Bool {
    caseInsensitive
  }

  /// Consulted before each primitive operation; return a fault to make that operation fail.
  @_spi(Testing) public var faultHandler: FileSystemFaultHandler? {
    get { state.withLock { $0.faultHandler } }
    set { state.withLock { $0.faultHandler = newValue } }
  }

  /// Every primitive operation performed so far, in order, with its outcome.
  @_spi(Testing) public var operations: [FileSystemOperationRecord] {
    state.withLock { $0.operations }
  }

  /// How many atomic replaces of `url` completed (each one is one durable write).
  @_spi(Testing) public func completedWrites(of url: URL) -> Int {
    let path = key(url)
    return state.withLock { state in
      state.operations.filter { $0.operation == .rename && $0.path == path && $0.error == nil }
        .count
    }
  }

  /// The files a download was asked for (see ``NotDownloaded``), by path, in order.
  var downloadRequests: [String] {
    state.withLock { $0.downloadRequests }
  }

  /// Records the request: this disk holds every file it has.
  package func requestDownload(of url: URL) {
    let path = key(url)
    state.withLock { $0.downloadRequests.append(path) }
  }

  /// How many watches are live on this disk: for tests of reference lifetime.
  var watcherCount: Int {
    state.withLock { $0.watchers.count + $0.entryWatchers.count }
  }

  /// All files on this disk, by path.
  package var files: [String: Data] { state.withLock { $0.files } }

  /// Sets a file's bytes directly, as another process or an older app version would have.
  ///
  /// Watchers are notified unless `notifyingWatchers` is false. No fault applies.
  package func setContents(_ data: Data?, at url: URL, notifyingWatchers: Bool = true) {
    let path = key(url)
    let callbacks = state.withLock { state -> [@Sendable () -> Void] in
      if let data {
        state.files[path] = data
        state.identities[path] = state.version
        spell(path, as: url, in: &state)
        Self.addFolders(of: path, to: &state)
      } else {
        state.files[path] = nil
        state.spellings[path] = nil
      }
      guard notifyingWatchers else { return [] }
      return Self.callbacks(for: path, in: state)
    }
    for callback in callbacks { callback() }
  }

  // MARK: - FileSystem

  package func identity(of url: URL) throws -> FileIdentity? {
    let path = key(url)
    return state.withLock { Self.identity(of: path, in: $0) }
  }

  private static func identity(of path: String, in state: State) -> FileIdentity? {
    guard let data = state.files[path] else { return nil }
    return FileIdentity(inode: state.identities[path] ?? 0, size: Int64(data.count), modified: 0)
  }

  package func contents(of url: URL, maximumSize: Int) throws -> Data? {
    precondition(maximumSize >= 0, "maximumSize must not be negative, not \(maximumSize)")
    let path = key(url)
    return try state.withLock { state in
      guard let data = state.files[path] else { return nil }
      // Refused by its size before it is read, as the real disk does (rule "Bad files get a clear
      // error at once").
      if data.count > maximumSize {
        throw Self.record(
          .read, path, .tooLarge(size: Int64(data.count), limit: maximumSize), &state)
      }
      try Self.perform(.read, path, &state)
      return data
    }
  }

  package func writeAtomically(_ data: Data, to url: URL) throws {
    try write(data, to: url, replacing: true)
  }

  package func createAtomically(_ data: Data, at url: URL) throws {
    try write(data, to: url, replacing: false)
  }

  package func folderExists(_ url: URL) -> Bool {
    let path = key(url)
    return state.withLock { $0.folders.contains(path) }
  }

  /// The check and the rename in one step, as a swap of names makes them on the real disk.
  @discardableResult
  package func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    try write(
      data, to: url, replacing: true, expecting: .some(expected), creatingFolder: creatingFolder)
  }

  /// The path as written: this disk has no links, and standardizes every path it is given.
  package func resolve(_ url: URL, path: String, folders: ResolvedFolders) throws -> URL { url }

  /// Copies the bytes, as the real disk does by linking: the same steps as a write of a new file.
  package func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
    let data = try state.withLock { state -> Data? in
      let path = key(source)
      guard let data = state.files[path] else { return nil }
      try Self.perform(.read, path, &state)
      return data
    }
    guard let data else { return false }
    try createAtomically(data, at: destination)
    return true
  }

  /// The atomic protocol, step by step; with `replacing` false the rename fails rather than
  /// replace a file, as the real disk's link does.
  ///
  /// With `expecting`, the file there must be the one it identifies (`.some(nil)`: no file), or
  /// nothing is written (``FileSystemError/Reason/replacedMeanwhile``). Returns the identity of
  /// the file written.
  @discardableResult
  private func write(
    _ data: Data, to url: URL, replacing: Bool, expecting: FileIdentity?? = nil,
    creatingFolder: Bool = true
  ) throws -> FileIdentity? {
    let path = key(url)
    let folder = (path as NSString).deletingLastPathComponent
    let temporary = (folder as NSString).appendingPathComponent(
      TemporaryFile.name(for: (path as NSString).lastPathComponent))
    let (written, callbacks) = try state.withLock {
      state -> (FileIdentity?, [@Sendable () -> Void]) in
      if case .some(let expected) = expecting, Self.identity(of: path, in: state) != expected {
        throw FileSystemError(.write, path: path, reason: .replacedMeanwhile)
      }
      if !state.folders.contains(folder) && !creatingFolder {
        throw FileSystemError(.write, path: path, reason: .folderRemoved)
      }
      if !state.folders.contains(folder) {
        try Self.perform(.createFolder, folder, &state)
        Self.addFolders(of: path, to: &state)
      }
      var written: FileIdentity?
      do {
        state.files[temporary] = Data()
        let fault = Self.fault(for: .write, temporary, &state)
        switch fault {
        case .fail(let reason)?:
          throw Self.record(.write, temporary, reason, &state)
        case .shortWrite(let written)?:
          state.files[temporary] = data.prefix(max(0, min(written, data.count)))
          throw Self.record(
            .write, temporary, .shortWrite(written: written, expected: data.count), &state)
        case nil:
          state.files[temporary] = data
          Self.record(.write, temporary, nil, &state)
        }
        try Self.perform(.fsync, temporary, &state)
        if !replacing && state.files[path] != nil {
          throw Self.record(.rename, path, .alreadyExists, &state)
        }
        try Self.perform(.rename, path, &state)
        state.files[path] = data
        state.identities[path] = state.version
        spell(path, as: url, in: &state)
        state.files[temporary] = nil
        written = Self.identity(of: path, in: state)
      } catch {
        // A failed atomic write cleans up its temporary file, as the local writer does.
        state.files[temporary] = nil
        throw error
      }
      // The rename already happened: a failed folder flush is reported but the new bytes stay,
      // exactly as on a real disk.
      try Self.perform(.fsync, folder, &state)
      return (written, Self.callbacks(for: path, in: state))
    }
    for callback in callbacks { callback() }
    return written
  }

  package func removeItem(at url: URL) throws {
    let path = key(url)
    try state.withLock { state in
      guard state.files[path] != nil else { return }
      try Self.perform(.remove, path, &state)
      state.files[path] = nil
      state.spellings[path] = nil
    }
  }

  package func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    let path = key(FileLock.lockFileURL(for: url))
    // NB: the fault is consulted (and the attempt recorded) before waiting, never while the
    // disk's state is locked: a holder on another thread must be able to finish its write.
    try state.withLock { try Self.perform(.lock, path, &$0) }
    guard locks.acquire(path, timeout: timeout) else {
      throw FileSystemError(
        .lock, path: path, reason: .lockTimedOut(seconds: Int(timeout.components.seconds)))
    }
    return FileLock { [locks] in locks.release(path) }
  }

  /// Whether the lock of the file at `url` is held now, by any context on this disk.
  func isLocked(_ url: URL) -> Bool {
    locks.isHeld(key(FileLock.lockFileURL(for: url)))
  }

  package func contentsOfDirectory(at url: URL) throws -> [String] {
    let folder = key(url)
    return try state.withLock { state in
      try Self.perform(.list, folder, &state)
      let prefix = folder.hasSuffix("/") ? folder : folder + "/"
      let names = state.files.keys.filter { $0.hasPrefix(prefix) }
        .filter { !$0.dropFirst(prefix.count).contains("/") }
        .map { path in
          // A case-insensitive disk lists a name as it was first spelled.
          let spelled = state.spellings[path] ?? path
          return (spelled as NSString).lastPathComponent
        }
      return names.sorted()
    }
  }

  package func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    let path = key(url)
    let id = state.withLock { $0.watchers.add(path, onChange) }
    return StorageSubscription { [weak self] in self?.state.withLock { $0.watchers.remove(id) } }
  }

  package func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let path = key(folder)
    let id = state.withLock { state in
      defer { state.nextEntryWatcher += 1 }
      state.entryWatchers[state.nextEntryWatcher] = (path, matching, onChange)
      return state.nextEntryWatcher
    }
    return StorageSubscription { [weak self] in
      _ = self?.state.withLock { $0.entryWatchers.removeValue(forKey: id) }
    }
  }

  // MARK: - Internals

  /// The path a file is kept under: as written, or folded on a case-insensitive disk.
  private func key(_ url: URL) -> String {
    let path = url.standardizedFileURL.path
    return caseInsensitive ? FileName.folded(path) : path
  }

  /// Remembers how a file's name was first spelled, on a case-insensitive disk.
  private func spell(_ path: String, as url: URL, in state: inout State) {
    guard caseInsensitive, state.spellings[path] == nil else { return }
    state.spellings[path] = url.standardizedFileURL.path
  }

  /// The watchers of the file at `path` and of its folder's entries of that name.
  private static func callbacks(for path: String, in state: State) -> [@Sendable () -> Void] {
    var callbacks = state.watchers.callbacks { $0 == path }
    guard !state.entryWatchers.isEmpty else { return callbacks }
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    for watcher in state.entryWatchers.values where watcher.folder == folder {
      if watcher.matching(name) { callbacks.append(watcher.onChange) }
    }
    return callbacks
  }

  private static func addFolders(of path: String, to state: inout State) {
    var folder = (path as NSString).deletingLastPathComponent
    while !folder.isEmpty, state.folders.insert(folder).inserted, folder != "/" {
      folder = (folder as NSString).deletingLastPathComponent
    }
  }

  private static func fault(
    for operation: FileOperation, _ path: String, _ state: inout State
  ) -> FileSystemFault? {
    state.faultHandler?(operation, path)
  }

  private static func perform(
    _ operation: FileOperation, _ path: String, _ state: inout State
  ) throws {
    switch fault(for: operation, path, &state) {
    case .fail(let reason)?:
      throw record(operation, path, reason, &state)
    case .shortWrite?:
      throw record(operation, path, .ioError, &state)
    case nil:
      record(operation, path, nil, &state)
    }
  }

  @discardableResult
  private static func record(
    _ operation: FileOperation, _ path: String, _ reason: FileSystemError.Reason?,
    _ state: inout State
  ) -> FileSystemError {
    let error = FileSystemError(operation, path: path, reason: reason ?? .ioError)
    state.operations.append(
      FileSystemOperationRecord(
        operation: operation, path: path, error: reason == nil ? nil : error))
    return error
  }
}

/// Decides whether a primitive operation on a path fails; `nil` lets it succeed.
@_spi(Testing) public typealias FileSystemFaultHandler =
  @Sendable (_ operation: FileOperation, _ path: String) -> FileSystemFault?

/// A fault injected into one primitive file operation.
@_spi(Testing) public enum FileSystemFault: Equatable, Sendable {
  /// The operation fails with this reason and has no effect.
  case fail(FileSystemError.Reason)
  /// A write stores only the first `written` bytes, then fails (for other operations, an I/O
  /// error).
  case shortWrite(written: Int)
}

/// One primitive operation an ``InMemoryFileSystem`` performed.
@_spi(Testing) public struct FileSystemOperationRecord: Equatable, Sendable {
  /// The operation.
  public var operation: FileOperation
  /// The path it worked on.
  public var path: String
  /// The error it failed with, if it failed.
  public var error: FileSystemError?
}
