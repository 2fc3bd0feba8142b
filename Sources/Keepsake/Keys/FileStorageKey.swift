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
///   the file's permissions, and write through a symbolic link to its target.
/// - Changes are saved in the background, coalesced (a burst of mutations does a handful of
///   writes); ``Shared/save()`` and ``Shared/flush()`` write now.
/// - Changes made by other processes are noticed and loaded.
public struct FileStorageKey<Value: Sendable>: SharedKey {
  /// The file.
  public let url: URL
  /// The file's standardized path, as the key's identity.
  ///
  /// NB: made once: Foundation standardizes a URL with string work and, on Linux, system calls,
  /// and the identity is asked for several times per reference (measured: 5% of a key's
  /// creation).
  public let id: SharedKeyID
  let decode: @Sendable (Data) throws -> Value
  let encode: @Sendable (Value) throws -> Data
  private let interval: Duration
  /// The largest file the key reads; a larger one is refused unread (data-safety rule "Bad files
  /// get a clear error at once"; see the Data safety article).
  package let maximumFileSize: Int
  /// Whether the first read happens off the caller's thread (see ``Shared/isLoading``).
  package let loadsInBackground: Bool
  /// How a pending change merges with another process's change of the file, if it can.
  let merge: SharedMerge<Value>?
  /// What this key last read or wrote, to tell its own writes from someone else's; each
  /// reference has its own (see `withOwnState()`).
  private var known = KnownFile()
  /// Its part in keeping a file in a synced folder whole across devices (`FileStorageKey+Sync`).
  var sync = FileSync<Value>()

  /// A key for `url` with custom coding.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - saveInterval: The most often the file is written while the value keeps changing.
  ///   - maximumFileSize: The largest file the key reads. A larger one sets ``Shared/loadError``
  ///     naming its size and the limit, is not read, and is left as it is.
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
    self.url = url
    self.id = SharedKeyID(kind: "file", name: url.standardizedFileURL.path)
    self.interval = saveInterval
    self.maximumFileSize = maximumFileSize
    self.loadsInBackground = loadsInBackground
    self.merge = merge ?? SharedMerge.conformance(of: Value.self)
    self.decode = decode
    self.encode = encode
  }

  public var saveTiming: SaveTiming { .coalesced(interval: interval) }

  public func load(in context: StorageContext) throws -> Value? {
    syncMergeBeforeLoading(in: context)
    let fileSystem = context.fileSystem
    let identity = try wrap { try fileSystem.identity(of: url) }
    guard let data = try wrap({ try fileSystem.contents(of: url, maximumSize: maximumFileSize) })
    else {
      known.set(nil)
      syncDidRead(nil, in: context)
      return nil
    }
    let value = try decodeFile(data)
    known.set(identity)
    syncDidRead(data, in: context)
    return value
  }

  public func reload(in context: StorageContext) throws -> SharedLoadResult<Value> {
    let identity = try wrap { try context.fileSystem.identity(of: url) }
    if identity == known.get() { return .unchanged }
    return try load(in: context).map(SharedLoadResult.value) ?? .missing
  }

  /// Writes `value` under the file's cross-process lock, unless the file became unreadable.
  ///
  /// ``Shared`` does more than this on every save: it merges with another process's change or
  /// keeps both versions. Call this directly only to write a key outside any reference.
  public func save(_ value: Value, in context: StorageContext) throws {
    let lock = try lock(in: context)
    defer { lock.release() }
    // NB: someone else may have replaced the file since it was read, maybe with data this
    // version cannot read (a newer app's format). Check before writing over it (rule "A file
    // Keepsake cannot read is never overwritten").
    _ = try storedChange(in: context)
    try write(value, in: context)
  }

  public func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    TemporaryFile.removeAbandoned(besides: url, in: context)
    return syncSubscribe(in: context, onChange: onChange)
  }

  public func quarantineUnreadable(in context: StorageContext) throws -> URL? {
    let fileSystem = context.fileSystem
    guard let data = try fileSystem.contents(of: url, maximumSize: maximumFileSize) else {
      return nil
    }
    let quarantine = try copyURL(marker: Quarantine.marker, in: context)
    try fileSystem.writeAtomically(data, to: quarantine)
    // The damaged bytes are safe; the file may now be replaced.
    known.set(try fileSystem.identity(of: url))
    return quarantine
  }

  // MARK: - Helpers

  private func copyURL(marker: String, in context: StorageContext) throws -> URL {
    let names = Set(try context.fileSystem.contentsOfDirectory(at: url.deletingLastPathComponent()))
    return Quarantine.url(for: url, existingNames: names, marker: marker)
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

  func lock(in context: StorageContext) throws -> FileLock {
    sync.state.holding(try context.fileSystem.lockExclusively(url))
  }

  func storedChange(in context: StorageContext) throws -> StoredChange<Value> {
    let fileSystem = context.fileSystem
    var identity = try wrap { try fileSystem.identity(of: url) }
    let last = known.get()
    if identity == last { return .unchanged }
    if syncMergeBeforeReading(in: context) {
      identity = try wrap { try fileSystem.identity(of: url) }
    }
    guard identity != nil,
      let data = try wrap({ try fileSystem.contents(of: url, maximumSize: maximumFileSize) })
    else {
      if last != nil { syncDidRead(nil, in: context) }
      return last == nil ? .unchanged : .deleted
    }
    let value = try decodeFile(data)
    syncDidRead(data, in: context)
    return .replaced(value, data: data, identity: identity)
  }

  func remember(_ identity: FileIdentity?) { known.set(identity) }

  func write(_ value: Value, in context: StorageContext) throws {
    let fileSystem = context.fileSystem
    let data = try syncEncode(value, in: context)
    do {
      try fileSystem.writeAtomically(data, to: url)
    } catch {
      // NB: a write can fail after its rename (flushing the folder): the file then holds our
      // bytes, and must not be taken for another process's change by the next save.
      if let identity = try? fileSystem.identity(of: url),
        (try? fileSystem.contents(of: url, maximumSize: data.count)) == data
      {
        known.set(identity)
        syncDidWrite(data, in: context)
      }
      throw error
    }
    known.set(try? fileSystem.identity(of: url))
    syncDidWrite(data, in: context)
  }

  func keepConflictCopy(_ data: Data, in context: StorageContext) throws -> URL {
    let copy = try copyURL(marker: Quarantine.conflictMarker, in: context)
    try context.fileSystem.writeAtomically(data, to: copy)
    return copy
  }
}

/// Why a file's content was rejected before decoding.
public enum FileContentError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file exists but has no bytes, though a saved value is never empty.
  case empty

  public var description: String {
    switch self {
    case .empty: return "the file is empty, though a saved value never is."
    }
  }
}

/// The identity of the file a key last read or wrote, shared by copies of the key.
private final class KnownFile: Sendable {
  private let identity = Mutex<FileIdentity?>(nil)
  func get() -> FileIdentity? { identity.withLock { $0 } }
  func set(_ value: FileIdentity?) { identity.withLock { $0 = value } }
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
  /// - Parameters:
  ///   - url: The file.
  ///   - saveInterval: The most often the file is written while the value keeps changing.
  ///   - maximumFileSize: The largest file the key reads; a larger one is refused unread.
  ///   - loadsInBackground: Read the file off the caller's thread (``Shared/isLoading``).
  ///   - merge: How a pending change merges with another process's change of the file; by
  ///     default ``SharedMergeable`` values merge and others keep both versions.
  public static func fileStorage<Value: Codable & Sendable>(
    _ url: URL, saveInterval: Duration = .milliseconds(500),
    maximumFileSize: Int = FileSystemLimits.defaultMaximumFileSize,
    loadsInBackground: Bool = false,
    merge: SharedMerge<Value>? = nil
  ) -> Self where Self == FileStorageKey<Value> {
    FileStorageKey(
      url: url, saveInterval: saveInterval, maximumFileSize: maximumFileSize,
      loadsInBackground: loadsInBackground, merge: merge,
      decode: { try JSONInput.decode(Value.self, from: $0) },
      encode: { value in try JSONCoding.encode(value) })
  }
}
