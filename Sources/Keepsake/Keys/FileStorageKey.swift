import Foundation
import Synchronization

/// A key that keeps its value in a file, as JSON or in a versioned format.
///
/// Data-safety guarantees (see the Data safety article):
/// - A file that exists but cannot be read or decoded (or is empty) is never overwritten: the
///   key reports a ``SharedLoadError`` naming the file and the coding path, and saves nothing
///   over it until the app calls ``Shared/replaceUnreadableData()``, which first puts the bytes
///   in a quarantine copy beside the file.
/// - A missing file is not an error: the default is used and nothing is written until the value
///   changes.
/// - Writes are atomic and durable (temporary file, fsync, rename, fsync of the folder), keep
///   the file's permissions, and write through a symbolic link to its target, which a first save
///   creates when it does not exist yet.
/// - A value is never written when it encodes to more than `maximumFileSize` bytes, the most the
///   key would read back: the save fails with
///   ``FileSystemError/Reason/valueTooLarge(size:limit:)`` and the file is left as it was.
/// - Every spelling of one file (through symbolic links, `..`, or a link whose target does not
///   exist yet) is one key: the file is resolved once, when the key is first used in a context.
/// - Changes are saved in the background, coalesced (a burst of mutations does a handful of
///   writes); ``Shared/save()`` and ``Shared/flush()`` write now.
/// - Changes made by other processes are noticed and loaded.
public struct FileStorageKey<Value: Sendable>: SharedKey {
  /// The file, as the app named it.
  public var url: URL { settings.url }
  /// The key's identity: the path of the file ``url`` names, with symbolic links followed (the
  /// last one too) once the key is used in a context, so every spelling of one file shares one
  /// reference; the standardized path until then.
  ///
  /// NB: made once per key and context: Foundation standardizes a URL with string work and, on
  /// Linux, system calls, and the identity is asked for several times per reference (measured:
  /// 5% of a key's creation).
  public var id: SharedKeyID { location.id }
  /// The file itself: ``url`` with its links resolved in the key's context (see
  /// ``resolved(in:)``), where it is read and written, and its lock and copies kept beside.
  package var file: URL { location.file }
  /// ``file``'s path.
  ///
  /// NB: kept, because `URL.path` costs about 4,000 instructions a call on Linux.
  var filePath: String { location.filePath }
  /// The path of ``file``'s folder, which the sync code asks for at every read.
  ///
  /// NB: kept with the file's path: found at each read, it was about 1,200 instructions of
  /// every file key's creation.
  var folderPath: String { location.folderPath }
  /// Why ``url`` cannot name a file Keepsake can keep (a name longer than a file system allows),
  /// reported as the key's load error: found when the key is made, before anything is read.
  private var pathProblem: FileSystemError? { location.problem }
  var decode: @Sendable (Data) throws -> Value { settings.decode }
  var encode: @Sendable (Value) throws -> Data { settings.encode }
  /// The largest file the key reads; a larger one is refused unread (data-safety rule "Bad files
  /// get a clear error at once"; see the Data safety article).
  package var maximumFileSize: Int { settings.maximumFileSize }
  /// Whether the first read happens off the caller's thread (see ``Shared/isLoading``).
  package var loadsInBackground: Bool { settings.loadsInBackground }
  /// How a pending change merges with another process's change of the file, if it can.
  var merge: SharedMerge<Value>? { settings.merge }
  /// Whether a merge is made on the stored JSON, field by field.
  var mergesByField: Bool { settings.mergesByField }
  // NB: what the key is made with, and where its file is, each in one object: a reference's
  // creation copies its key about seven times, and a copy of a key that kept these dozen
  // fields itself retained and released each of them (callgrind: 5,100 instructions a key,
  // about 220 atomic operations).
  private let settings: FileKeySettings<Value>
  private var location: FileLocation
  /// What this key last read or wrote, to tell its own writes from someone else's; each
  /// reference has its own (see `withOwnState()`).
  var known = KnownFile()
  /// Its part in keeping a file in a synced folder whole across devices (`FileStorageKey+Sync`).
  var sync = FileSync<Value>()

  /// A key for `url` with custom coding.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - saveInterval: The most often the file is written while the value keeps changing.
  ///   - maximumFileSize: The largest file the key reads, and writes. A larger file sets
  ///     ``Shared/loadError`` naming its size and the limit, is not read, and is left as it is; a
  ///     value that encodes to more is not written (``Shared/saveError`` names both sizes).
  ///   - loadsInBackground: Read the file off the caller's thread: the value is the default,
  ///     with ``Shared/isLoading`` true, until it is read. For large files read at launch.
  ///   - merge: How a pending change merges with another process's change of the file. By
  ///     default, values that conform to ``SharedMergeable`` merge (arrays of `Identifiable`
  ///     elements and dictionaries do); other values keep both versions (see
  ///     ``SharedConflict``).
  ///   - decode: Turns the file's bytes into a value; throwing marks the file unreadable.
  ///   - encode: Turns a value into the file's bytes.
  public init(
    url: URL,
    saveInterval: Duration = .milliseconds(500),
    maximumFileSize: Int = FileSystemLimits.defaultMaximumFileSize,
    loadsInBackground: Bool = false,
    merge: SharedMerge<Value>? = nil,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data
  ) {
    self.settings = FileKeySettings(
      url: url, interval: saveInterval, maximumFileSize: maximumFileSize,
      loadsInBackground: loadsInBackground,
      merge: merge ?? SharedMerge.conformance(of: Value.self) ?? SharedMerge.fieldsOnly(Value.self),
      mergesByField: merge == nil && FieldMerge.applies(to: Value.self), decode: decode,
      encode: encode)
    let given = FolderPath.path(of: url)
    let path = FolderPath.standardPath(of: url, path: given)
    self.location = FileLocation(
      id: SharedKeyID(kind: "file", name: path), file: url, filePath: given,
      problem: Self.problem(withPath: path))
  }

  public var saveTiming: SaveTiming { .coalesced(interval: settings.interval) }

  public func load(in context: StorageContext) throws -> Value? {
    let engine = syncMergeBeforeLoading(in: context)
    try wrap { try checkPath() }
    // NB: the identity of the version read, from the open file: no `stat` before the read.
    guard let (data, identity) = try wrap({ try readFile(context.fileSystem) }) else {
      // A file iCloud Drive has not downloaded yet is not "no file yet": a first save would
      // write a new file over the person's data.
      try wrap { try context.fileSystem.refuseIfNotDownloaded(path: filePath) }
      known.set(nil)
      syncDidRead(nil, in: context)
      return nil
    }
    // NB: seen before it is decoded: a file this key could not read, then removed, is a
    // removal (a replacement may be on its way), not "no file, as ever".
    known.saw(identity)
    let value = try decodeFile(data)
    known.set(identity)
    known.noteRead(data, value: value)
    known.noteLook(at: data, identity: identity)
    syncDidRead(data, in: context, engine: .some(engine))
    return value
  }

  public func reload(in context: StorageContext) throws -> SharedLoadResult<Value> {
    let identity = try wrap { try checkedIdentity(context.fileSystem) }
    if identity == known.get() { return .unchanged }
    return try load(in: context).map(SharedLoadResult.value) ?? .missing
  }

  /// Writes `value` under the file's cross-process lock, unless the file became unreadable.
  ///
  /// ``Shared`` does more than this on every save: it merges with another process's change or
  /// keeps both versions. Call this directly only to write a key outside any reference.
  public func save(_ value: Value, in context: StorageContext) throws {
    let lock = try lock(in: context, timeout: FileLock.defaultTimeout)
    defer { lock.release() }
    // NB: someone else may have replaced the file since it was read, maybe with data this
    // version cannot read (a newer app's format). Check before writing over it (rule "A file
    // Keepsake cannot read is never overwritten").
    _ = try storedChange(in: context, rereading: false)
    try write(value, in: context)
  }

  public func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    if pathProblem != nil { return nil }
    let (leftovers, copies) = TemporaryFile.removeAbandoned(
      besides: file, path: filePath, in: context)
    let subscription = syncSubscribe(in: context, onChange: onChange)
    if !leftovers.isEmpty {
      takeIn(leftovers, in: context)
      // The reference reads what this wrote, whether or not a watch reports it.
      onChange()
    }
    // Every writer is told, whenever it opens the key: a version kept beside the file in a
    // conflict copy (by another process, or one that has ended: a command-line tool's) is
    // reported until someone restores or removes it. The newest one (`copies` is oldest
    // first); `keepsake quarantined` lists them all.
    if !copies.isEmpty { reportKeptCopy(among: copies, in: context) }
    return subscription
  }

  /// Reports the newest of `copies` (conflict copies beside the file, oldest first) that
  /// belongs with the file, as kept by another process.
  ///
  /// NB: apart from ``subscribe(in:onChange:)``, which every key's creation runs: a URL's folder
  /// costs string work and, on Linux, system calls, and most files have no copy.
  private func reportKeptCopy(among copies: [String], in context: StorageContext) {
    let folder = file.deletingLastPathComponent()
    let kept = copies.last { name in
      context.fileSystem.belongsWithStore(folder.appendingPathComponent(name), store: file)
    }
    guard let kept else { return }
    sync.state.reportOnce(
      SharedConflict(
        keyID: id, url: file, resolution: .keptBoth(copy: folder.appendingPathComponent(kept)),
        keptByAnotherProcess: true),
      about: kept)
  }

  /// Sets the file aside as a quarantine copy beside it, without reading it, so that a file of
  /// any size, one over the key's limit too, can be replaced.
  ///
  /// - Returns: The copy, or `nil` when there is no file.
  /// - Throws: ``FileSystemError`` when the copy cannot be made; a FIFO, a device or a folder at
  ///   the path is refused and left as it is.
  public func quarantineUnreadable(in context: StorageContext) throws -> URL? {
    try checkPath()
    guard
      let quarantine = try keepCopy(
        marker: Quarantine.marker, in: context,
        make: { copy in
          try context.fileSystem.copyItem(at: file, toNew: copy)
        })
    else { return nil }
    // The damaged bytes are safe; the file may now be replaced.
    known.set(try context.fileSystem.identity(of: file))
    return quarantine
  }

  // MARK: - Helpers

  /// The key, with its file resolved on `context`'s file system: what a reference of the key in
  /// that context uses, so every spelling of a file is one key (see ``id``).
  ///
  /// A path that cannot name a file (a name too long, a link to a name that is not valid UTF-8)
  /// is kept as the problem the key reports as its load error; a loop of links is left for the
  /// read to report, as any bad file at the path is.
  func resolved(in context: StorageContext) -> FileStorageKey {
    guard pathProblem == nil else { return self }
    let file: URL
    let path: String
    let problem: FileSystemError?
    do {
      file = try context.fileSystem.resolve(url, path: filePath, folders: context.resolvedFolders)
      // NB: the path the key keeps, when no link changed it (`URL.path` costs thousands of
      // instructions a call on Linux).
      let folded = foldedID(ofPath: file == url ? filePath : file.path, in: context)
      // The common case, a path without links: the key is already what it should be.
      if file == url && folded == nil { return self }
      path = file.path
      problem = Self.problem(withPath: path)
      if let folded {
        var copy = self
        copy.location = FileLocation(id: folded, file: file, filePath: path, problem: problem)
        return copy
      }
    } catch let error as FileSystemError where error.reason == .linkLoop {
      return self
    } catch let error as FileSystemError {
      (file, path, problem) = (self.file, self.file.path, error)
    } catch {
      let reason = FileSystemError.Reason.posix(code: EINVAL)
      (file, path) = (self.file, self.file.path)
      problem = FileSystemError(.read, path: url.path, reason: reason)
    }
    var copy = self
    copy.location = FileLocation(
      id: SharedKeyID(kind: "file", name: path), file: file, filePath: path, problem: problem)
    return copy
  }

  /// On a folder whose names ignore case, the identity every spelling of the file at `path`
  /// shares, so two spellings of one file are one reference (a save makes a new inode, so the inode cannot be
  /// the identity); `nil` where names are case-sensitive.
  private func foldedID(ofPath path: String, in context: StorageContext) -> SharedKeyID? {
    // NB: the folder by string: `NSString`'s path methods cost as much as the rest of this.
    let folder = FolderPath.parent(of: path) ?? path
    guard context.fileSystem.foldsCase(inFolder: folder, folders: context.resolvedFolders)
    else { return nil }
    return SharedKeyID(kind: "file", name: FileName.folded(path))
  }

  /// Why `path` cannot name a file, if a name in it, or the whole, is longer than the system
  /// allows; examined without a system call.
  private static func problem(withPath path: String) -> FileSystemError? {
    FileSystemLimits.excess(of: path).map { FileSystemError(.read, path: path, reason: $0) }
  }

  /// Throws the key's path problem, if it has one.
  func checkPath() throws {
    if let pathProblem { throw pathProblem }
  }

  /// The file's identity, once the path is known to be usable.
  ///
  /// - Throws: ``FileSystemError/Reason/notDownloaded`` for a file iCloud Drive has not
  ///   downloaded yet, so no save takes it for a missing file.
  private func checkedIdentity(_ fileSystem: any FileSystem) throws -> FileIdentity? {
    try checkPath()
    guard let identity = try fileSystem.identity(of: file) else {
      try fileSystem.refuseIfNotDownloaded(path: filePath)
      return nil
    }
    return identity
  }

  /// The file's bytes and the identity of the version read, `nil` when there is no file.
  private func readFile(_ fileSystem: any FileSystem) throws -> (Data, FileIdentity?)? {
    try fileSystem.contents(atPath: filePath, maximumSize: maximumFileSize)
  }

  private func decodeFile(_ data: Data) throws -> Value {
    do {
      if data.isEmpty { throw FileContentError.empty }
      return try decode(data)
    } catch {
      throw SharedLoadError(keyID: id, url: url, underlying: error)
    }
  }

  private func wrap<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw SharedLoadError(keyID: id, url: url, underlying: error)
    }
  }
}

extension FileStorageKey: BackgroundLoadingKey {}

extension FileStorageKey: CoordinatedKey {
  func withOwnState() -> FileStorageKey {
    var copy = self
    copy.known = KnownFile()
    copy.sync = sync.withOwnState()
    return copy
  }

  func lock(in context: StorageContext, timeout: Duration) throws -> FileLock {
    try checkPath()
    // NB: a folder removed since the key knew its file is not made again, not even for the
    // lock file.
    let lock = try context.fileSystem.lockExclusively(
      file, timeout: timeout, creatingFolder: !known.hasHadFile())
    return sync.state.holding(lock)
  }

  func storedChange(
    in context: StorageContext, rereading: Bool
  ) throws -> StoredChange<Value> {
    let fileSystem = context.fileSystem
    // An explicit load reads everything again: changes other processes kept beside the file
    // since this one opened it (an older version's, on this device or another) are merged in.
    if rereading { takeInKeptChanges(in: context) }
    var identity = try wrap { try checkedIdentity(fileSystem) }
    let last = known.get()
    // NB: a file this key looked at but did not take in yet (a change of ours was pending) and
    // that is gone now was removed: not "no file, as ever" (a replacement may be on its way).
    let removedUnseen = identity == nil && last == nil && known.lookedAtRemovedFile()
    known.saw(identity)
    if identity == last && !(rereading && identity != nil) && !removedUnseen {
      guard let identity, let digest = known.digestToCompare(identity) else { return .unchanged }
      // Whole-second times: an edit within the second of the last look keeps the identity, so
      // the bytes tell (read only on such file systems, and only within that second).
      let now = try wrap { try readFile(fileSystem) }
      if let (data, _) = now, KnownFile.digest(of: data) == digest {
        known.confirmLook()
        return .unchanged
      }
    }
    if syncMergeBeforeReading(in: context) {
      identity = try wrap { try checkedIdentity(fileSystem) }
      known.saw(identity)
    }
    guard identity != nil, let (data, read) = try wrap({ try readFile(fileSystem) }) else {
      known.saw(nil)
      if last != nil { syncDidRead(nil, in: context) }
      return last == nil && !removedUnseen ? .unchanged : .deleted
    }
    let value = try decodeFile(data)
    syncDidRead(data, in: context)
    known.saw(read ?? identity)
    known.noteRead(data, value: value)
    known.noteLook(at: data, identity: read ?? identity)
    return .replaced(value, data: data, identity: read ?? identity)
  }

  func remember(_ identity: FileIdentity?) { known.set(identity) }

  func write(_ value: Value, in context: StorageContext) throws {
    try checkPath()
    let fileSystem = context.fileSystem
    let data = keepingUnknownMembers(try syncEncode(value, in: context))
    // A key never writes what it would refuse to read: the next launch would only get the
    // default and a load error, and could not even start over.
    guard data.count <= maximumFileSize else {
      throw FileSystemError(
        .write, path: file.path, reason: .valueTooLarge(size: data.count, limit: maximumFileSize))
    }
    do {
      // NB: in place of exactly what the last look found: anything else that lands there is
      // never written over, and the save reads it and merges (see `replaceAtomically`). A
      // folder removed since the key knew the file is not created again.
      try fileSystem.replaceAtomically(
        data, at: file, expecting: known.seen(), creatingFolder: !known.hasHadFile())
    } catch let error as FileSystemError
      where error.reason == .replacedMeanwhile || error.reason == .folderRemoved
    {
      throw error
    } catch {
      // NB: a write can fail after its rename (flushing the folder): the file then holds our
      // bytes, and must not be taken for another process's change by the next save.
      if let identity = try? fileSystem.identity(of: file),
        (try? fileSystem.contents(of: file, maximumSize: data.count)) == data
      {
        known.set(identity)
        syncDidWrite(data, in: context)
      }
      throw error
    }
    let written = try? fileSystem.identity(of: file)
    known.set(written)
    known.noteLook(at: data, identity: written)
    syncDidWrite(data, in: context)
  }
}

/// The identity of the file a key last read or wrote, shared by copies of the key; and what
/// the key's last look at the file found, which its next write replaces and nothing else.
final class KnownFile: Sendable {
  /// The last document read from the file, with the value read from it, until its members the
  /// model does not know are found; then those members, as a base and theirs to merge into
  /// every write (see `FileStorageKey.keepingUnknownMembers(_:)`).
  enum ReadDocument: @unchecked Sendable {
    case none
    // NB: `@unchecked`: the value is the key's `Value`, which is Sendable; kept as `Any` so the
    // class needs no generic parameter (its type's metadata on every key's creation).
    case read(Data, value: Any)
    case unknownMembers(base: JSONValue, theirs: JSONValue)
  }

  private let document = Mutex(ReadDocument.none)

  /// Keeps the document just read, and the value read from it.
  func noteRead(_ data: Data, value: Any) { document.withLock { $0 = .read(data, value: value) } }

  /// The members of the last document read that the model does not know, found once per read
  /// by `find` (`nil`: none).
  func unknownMembers(
    find: (Data, Any) -> (base: JSONValue, theirs: JSONValue)?
  ) -> (base: JSONValue, theirs: JSONValue)? {
    document.withLock { document in
      switch document {
      case .none: return nil
      case .unknownMembers(let base, let theirs): return (base, theirs)
      case .read(let data, let value):
        let found = find(data, value)
        document = found.map { .unknownMembers(base: $0.base, theirs: $0.theirs) } ?? .none
        return found
      }
    }
  }

  private struct State {
    var identity: FileIdentity?
    var seen: FileIdentity?
    /// Whether the key has known a file at its name (read one or written one), so that its
    /// folder, if it disappears, was removed rather than never made.
    var hadFile = false
    /// Whether the last file seen at the name, never taken in, was removed: until a file is
    /// seen or written there again, the empty name is a removal, however often it is looked
    /// at.
    var removedUnseen = false
  }
  private let state = Mutex(State())
  func get() -> FileIdentity? { state.withLock { $0.identity } }
  func set(_ value: FileIdentity?) {
    state.withLock {
      $0.identity = value
      $0.seen = value
      if value != nil {
        $0.hadFile = true
        $0.removedUnseen = false
      }
    }
  }
  /// Records what a look at the file found (`nil`: no file).
  func saw(_ value: FileIdentity?) {
    state.withLock {
      if value == nil, $0.identity == nil, $0.seen != nil { $0.removedUnseen = true }
      $0.seen = value
      if value != nil {
        $0.hadFile = true
        $0.removedUnseen = false
      }
    }
  }
  /// Whether the name is empty because a file the key saw there, and never took in, was
  /// removed (see `State.removedUnseen`).
  func lookedAtRemovedFile() -> Bool {
    state.withLock { $0.removedUnseen || ($0.identity == nil && $0.seen != nil) }
  }
  func seen() -> FileIdentity? { state.withLock { $0.seen } }
  func hasHadFile() -> Bool { state.withLock { $0.hadFile } }

  // MARK: Whole-second times

  /// The last look at a file whose times are whole seconds: a digest of the bytes it read or
  /// wrote, and when it was (wall time, nanoseconds since 1970).
  private struct Look {
    var digest: UInt64
    var at: Int64
  }
  private let look = Mutex<Look?>(nil)

  /// How long after a file's recorded change another edit may still record the same change
  /// time: FAT keeps modification times in 2-second steps, the coarsest in use.
  static let timeGranularity: Int64 = 2_000_000_000

  /// Notes a read or write of `data`; kept only where the file's times are whole seconds
  /// (elsewhere the identity tells every edit, and nothing is computed).
  func noteLook(at data: Data, identity: FileIdentity?) {
    guard let identity, identity.hasWholeSecondTimes else {
      look.withLock { $0 = nil }
      return
    }
    let digest = Self.digest(of: data)
    look.withLock { $0 = Look(digest: digest, at: Self.now()) }
  }

  /// The digest the file's bytes must have to be unchanged, when `identity` cannot tell.
  ///
  /// That is when its times are whole seconds and the last look came within their granularity
  /// of its recorded change: an edit after that look may have kept every part of the identity.
  /// `nil`: the identity tells.
  func digestToCompare(_ identity: FileIdentity) -> UInt64? {
    guard identity.hasWholeSecondTimes else { return nil }
    return look.withLock { look in
      guard let look, look.at < identity.changed &+ Self.timeGranularity else { return nil }
      return look.digest
    }
  }

  /// The bytes were compared and found unchanged: the look is as of now.
  func confirmLook() {
    let now = Self.now()
    look.withLock { $0?.at = now }
  }

  private static func now() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1e9).rounded())
  }

  /// The 64-bit FNV-1a digest of `data`.
  static func digest(of data: Data) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}

/// What a file key is made with: the same for every copy of the key and every reference of it.
final class FileKeySettings<Value: Sendable>: Sendable {
  let url: URL
  let interval: Duration
  let maximumFileSize: Int
  let loadsInBackground: Bool
  let merge: SharedMerge<Value>?
  /// Whether a merge is made on the stored JSON, field by field (see ``SharedFieldMergeable``).
  let mergesByField: Bool
  let decode: @Sendable (Data) throws -> Value
  let encode: @Sendable (Value) throws -> Data

  init(
    url: URL, interval: Duration, maximumFileSize: Int, loadsInBackground: Bool,
    merge: SharedMerge<Value>?, mergesByField: Bool = false,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data
  ) {
    self.mergesByField = mergesByField
    self.url = url
    self.interval = interval
    self.maximumFileSize = maximumFileSize
    self.loadsInBackground = loadsInBackground
    self.merge = merge
    self.decode = decode
    self.encode = encode
  }
}

/// Where a file key's file is: as the app named it until the key is used in a context, then
/// with its links resolved (see `FileStorageKey.resolved(in:)`).
final class FileLocation: Sendable {
  /// The key's identity (see `FileStorageKey.id`).
  let id: SharedKeyID
  let file: URL
  /// `file`'s path.
  let filePath: String
  /// The path of `file`'s folder.
  let folderPath: String
  /// Why the path cannot name a file Keepsake can keep, if it cannot.
  let problem: FileSystemError?

  init(id: SharedKeyID, file: URL, filePath: String, problem: FileSystemError?) {
    self.id = id
    self.file = file
    self.filePath = filePath
    self.folderPath = FolderPath.parent(of: filePath) ?? file.deletingLastPathComponent().path
    self.problem = problem
  }
}

extension SharedKey {
  /// A value kept as JSON in the file at `url`.
  ///
  /// ```swift
  /// extension SharedKey where Self == FileStorageKey<[Draft]> {
  ///   static var drafts: Self { .fileStorage(.documentsDirectory.appending(path: "drafts.json")) }
  /// }
  /// ```
  ///
  /// Prefer a versioned format (`.fileStorage(url, format:)`) for data that must survive model
  /// changes.
  ///
  /// When the value is an array, reading the file again (after another process or device
  /// changed it, or at the start of a transaction) decodes only the elements whose bytes changed
  /// since the key last read it, and takes the others as they were decoded then: the same value
  /// as decoding the whole file, for the cost of what changed. An element's `init(from:)` runs
  /// again only for new bytes. Writing it again encodes only the elements that changed since
  /// the key last wrote it and copies the bytes of the others, when the element type is made of
  /// values (numbers, strings, dates, arrays and structs of them; not class instances), so a save
  /// of one edit among 100,000 costs little more than writing the file's bytes. The file holds
  /// exactly what encoding the whole value writes.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - saveInterval: The most often the file is written while the value keeps changing.
  ///   - maximumFileSize: The largest file the key reads and writes; a larger file is refused
  ///     unread, and a value that encodes to more is not written.
  ///   - loadsInBackground: Read the file off the caller's thread (``Shared/isLoading``).
  ///   - merge: How a pending change merges with another process's change of the file; by
  ///     default ``SharedMergeable`` values merge and others keep both versions.
  public static func fileStorage<Value: Codable & Sendable>(
    _ url: URL, saveInterval: Duration = .milliseconds(500),
    maximumFileSize: Int = FileSystemLimits.defaultMaximumFileSize,
    loadsInBackground: Bool = false,
    merge: SharedMerge<Value>? = nil
  ) -> Self where Self == FileStorageKey<Value> {
    // NB: two memos per key: when the value is an array, a save encodes only the elements that
    // changed, and reading the file again decodes only those whose bytes changed (another
    // process's append, a device's edit).
    let memo = CodingMemo()
    let encodingMemo = CodingMemo()
    return FileStorageKey(
      url: url, saveInterval: saveInterval, maximumFileSize: maximumFileSize,
      loadsInBackground: loadsInBackground, merge: merge,
      decode: { try JSONCoding.decode(Value.self, from: $0, memo: memo) },
      encode: { value in try JSONCoding.encode(value, memo: encodingMemo) })
  }
}
