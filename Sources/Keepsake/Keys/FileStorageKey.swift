import Foundation

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
  /// Linux, system calls, and the identity is asked for several times per reference.
  public var id: SharedKeyID { location.id }
  /// The file itself: ``url`` with its links resolved in the key's context (see
  /// ``resolved(in:)``), where it is read and written, and its lock and copies kept beside.
  var file: URL { location.file }
  /// ``file``'s path.
  ///
  /// NB: kept, because `URL.path` is costly on Linux.
  var filePath: String { location.filePath }
  /// The path of ``file``'s folder, which the sync code asks for at every read.
  ///
  /// NB: kept with the file's path: found at each read, it was a cost in every file key's
  /// creation.
  var folderPath: String { location.folderPath }
  /// Why ``url`` cannot name a file Keepsake can keep (a name longer than a file system allows),
  /// reported as the key's load error: found when the key is made, before anything is read.
  private var pathProblem: FileSystemError? { location.problem }
  var decode: @Sendable (Data) throws -> Value { settings.decode }
  var encode: @Sendable (Value) throws -> Data { settings.encode }
  /// The largest file the key reads; a larger one is refused unread (data-safety rule "Bad files
  /// get a clear error at once"; see the Data safety article).
  var maximumFileSize: Int { settings.maximumFileSize }
  /// Whether the first read happens off the caller's thread (see ``Shared/isLoading``).
  var loadsInBackground: Bool { settings.loadsInBackground }
  /// How a pending change merges with another process's change of the file, if it can.
  var merge: SharedMerge<Value>? { settings.merge }
  /// Whether a merge is made on the stored JSON, field by field.
  var mergesByField: Bool { settings.mergesByField }
  // NB: what the key is made with, and where its file is, each in one object: a reference's
  // creation copies its key about seven times, and a copy of a key that kept these dozen
  // fields itself retained and released each of them: hundreds of atomic operations a key.
  private let settings: FileKeySettings<Value>
  private var location: FileLocation
  /// Its part in keeping a file in a synced folder whole across devices (`FileStorageKey+Sync`),
  /// with the state of the reference that owns the key (see `withOwnState()`).
  var sync = FileSync<Value>()
  /// What this key last read or wrote, to tell its own writes from someone else's; each
  /// reference has its own, under the one lock of its file state (see ``SyncState/file``).
  var known: KnownFile { sync.state.file }

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
    guard let (data, identity, decoded) = try readDecoded(context.fileSystem) else {
      // A file iCloud Drive has not downloaded yet is not "no file yet": a first save would
      // write a new file over the person's data.
      try wrap { try context.fileSystem.refuseIfNotDownloaded(path: filePath) }
      known.set(nil)
      // A value made from this load is made on no file: its save has no parent.
      sync.state.forgetKnown()
      return nil
    }
    // NB: seen before it is decoded: a file this key could not read, then removed, is a
    // removal (a replacement may be on its way), not "no file, as ever".
    known.saw(identity)
    let value = try decoded.get()
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
    let (found, copies) = TemporaryFile.removeAbandoned(
      besides: file, path: filePath, in: context)
    let leftovers = found + bringBackChangesKeptAway(in: context)
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
      // NB: the path the key keeps, when no link changed it (`URL.path` is costly on Linux).
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
  func checkedIdentity(_ fileSystem: any FileSystem) throws -> FileIdentity? {
    try checkPath()
    guard let identity = try fileSystem.identity(of: file) else {
      try fileSystem.refuseIfNotDownloaded(path: filePath)
      return nil
    }
    return identity
  }

  /// The file's bytes and the identity of the version read, `nil` when there is no file.
  func readFile(_ fileSystem: any FileSystem) throws -> (Data, FileIdentity?)? {
    try fileSystem.contents(atPath: filePath, maximumSize: maximumFileSize)
  }

  /// The file's bytes, the identity of the version read and their value, or why they cannot
  /// be read (a ``SharedLoadError``), read again while a program writes the file in place (see
  /// `FileSystem+InPlaceWrites.swift`); `nil` when there is no file.
  func readDecoded(
    _ fileSystem: any FileSystem
  ) throws -> (data: Data, identity: FileIdentity?, value: Result<Value, any Error>)? {
    try wrap {
      try fileSystem.contents(
        atPath: filePath, maximumSize: maximumFileSize, decodedBy: decodeFile)
    }
  }

  func decodeFile(_ data: Data) throws -> Value {
    do {
      if data.isEmpty { throw FileContentError.empty }
      return try decode(data)
    } catch {
      throw SharedLoadError(keyID: id, url: url, underlying: error)
    }
  }

  func wrap<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw SharedLoadError(keyID: id, url: url, underlying: error)
    }
  }
}

extension FileStorageKey: BackgroundLoadingKey {}

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
