import Foundation
import Synchronization

/// The file operations Keepsake needs, behind a seam so tests never touch the real disk.
///
/// Keepsake ships two implementations: ``LocalFileSystem`` (the real disk, with atomic and
/// durable writes) and ``InMemoryFileSystem`` (a disk in memory, exclusive to one test, that can
/// inject faults into each operation). Every method may be called from any thread.
package protocol FileSystem: Sendable {
  /// Reads a whole file, refusing anything that is not a regular file of at most
  /// `maximumSize` bytes.
  ///
  /// The data-safety rule "Bad files get a clear error at once" (see the Data safety article): a
  /// FIFO, a device, a socket or a directory at `url`, a loop of symbolic links, or a file larger
  /// than `maximumSize` is refused at once, without blocking and without reading it whole, and is
  /// left as it is. A file that grows past the limit while it is read is refused too; at most
  /// `maximumSize + 1` bytes are ever held.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - maximumSize: The largest file accepted, in bytes; must not be negative.
  /// - Returns: The file's bytes, or `nil` when no file exists at `url`.
  /// - Throws: ``FileSystemError`` when the file exists but cannot be read, with
  ///   ``FileSystemError/Reason/notARegularFile(kind:)``,
  ///   ``FileSystemError/Reason/tooLarge(size:limit:)`` or
  ///   ``FileSystemError/Reason/linkLoop`` for the files above.
  func contents(of url: URL, maximumSize: Int) throws -> Data?

  /// ``contents(of:maximumSize:)`` of the file at `path`, with what identifies the version read
  /// (see ``identity(of:)``): for keys, which keep their file's path.
  ///
  /// NB: a path, not a URL: `URL.path` is costly on Linux, and a key makes its path once (see
  /// "Costs the code avoids" in Benchmarks/README.md).
  ///
  /// - Returns: The bytes and their identity, or `nil` when no file exists at `path`.
  /// - Throws: ``FileSystemError``, as ``contents(of:maximumSize:)`` does.
  func contents(atPath path: String, maximumSize: Int) throws -> (
    data: Data, identity: FileIdentity?
  )?

  /// Replaces the file at `url` with `data`, atomically and durably.
  ///
  /// The data is written to a temporary file in the same folder, flushed to disk, renamed over the
  /// target and the folder is flushed, so a crash at any instant leaves either the old file or the
  /// new one (data-safety rule "Writes are atomic and durable"; see the Data safety article).
  /// Missing parent folders are created.
  ///
  /// - Throws: ``FileSystemError``; on failure the previous file is untouched.
  func writeAtomically(_ data: Data, to url: URL) throws

  /// ``writeAtomically(_:to:)`` for a file only its owner may read (this device's own state:
  /// versions of the user's data kept as merge bases, the device's ID): created with mode 0600
  /// in its `open`, in folders created with mode 0700.
  func writePrivately(_ data: Data, to url: URL) throws

  /// Writes `data` as a new file at `url`, atomically and durably, and never in place of
  /// anything already there: for the copies Keepsake keeps beside a file, which must never
  /// replace each other.
  ///
  /// - Throws: ``FileSystemError``, with ``FileSystemError/Reason/alreadyExists`` when something
  ///   has the name already (it is left as it was).
  func createAtomically(_ data: Data, at url: URL) throws

  /// Replaces the file at `url` with `data`, atomically and durably, only if the file there is
  /// still the one `expected` identifies (`nil`: only if no file is there).
  ///
  /// The check and the replacement are one step where the file system can swap two names
  /// (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on Apple platforms): the
  /// new file is swapped in, and what came out is compared with `expected`; anything else is
  /// swapped back at once, so a program that ignores the lock and writes while the save runs
  /// loses nothing. Where names cannot be swapped, the file is compared again just before the
  /// rename. An empty name is taken without replacing anything, so a program creating the file
  /// at that instant wins.
  ///
  /// - Parameter creatingFolder: Whether a missing folder is created; otherwise its absence
  ///   throws ``FileSystemError/Reason/folderRemoved``.
  /// - Returns: The identity of the file written, as it is at its name now, taken from the file
  ///   itself rather than from the name (which a program could have taken for its own file in
  ///   the meantime); `nil` when the file system cannot tell it that way: the caller then looks
  ///   at the name.
  /// - Throws: ``FileSystemError``, with ``FileSystemError/Reason/replacedMeanwhile`` when the
  ///   file there is not the expected one (nothing of this write stays in its place).
  @discardableResult
  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity?

  /// Gives the regular file at `source` a durable copy at the new name `destination`, without
  /// reading it into memory, so a file of any size can be set aside (a second name for the same
  /// file where the file system allows it).
  ///
  /// - Returns: `false` when there is no file at `source`.
  /// - Throws: ``FileSystemError``: ``FileSystemError/Reason/notARegularFile(kind:)`` for a FIFO,
  ///   a device, a socket or a folder (left as they are), and
  ///   ``FileSystemError/Reason/alreadyExists`` when something has the name `destination`.
  func copyItem(at source: URL, toNew destination: URL) throws -> Bool

  /// The file `url` names, every symbolic link on the way followed, the last one too even when
  /// its target does not exist yet: what a key is identified by, and where its file, its lock
  /// and its copies are (see the Data safety article).
  ///
  /// - Throws: ``FileSystemError`` when the path cannot name a file: a loop of links, a name too
  ///   long, a link to a name that is not valid UTF-8.
  func resolve(_ url: URL) throws -> URL

  /// ``resolve(_:)``, taking the resolution of `url`'s folder from `folders` when it is there,
  /// and putting it there when the folder exists: the links on the way to a folder are then
  /// followed once per folder, and each key's creation examines only its own name.
  ///
  /// `path` is `url.path`, which the caller keeps (`URL.path` is costly on Linux).
  func resolve(_ url: URL, path: String, folders: ResolvedFolders) throws -> URL

  /// Whether names in the folder at `path` (a resolved path) ignore case, so that two spellings
  /// of a name are one file: APFS's default, FAT, SMB shares, ext4's casefold folders. A folder
  /// that does not exist yet answers as the nearest one that does. Cached in `folders`.
  func foldsCase(inFolder path: String, folders: ResolvedFolders) -> Bool

  /// Removes the file at `url`; removing a missing file is not an error.
  func removeItem(at url: URL) throws

  /// The names of the entries of a folder, or an empty list when it does not exist.
  func contentsOfDirectory(at url: URL) throws -> [String]

  /// Calls `onChange` (on an arbitrary thread) when the file at `url` may have been changed by
  /// someone else; keep the returned watch alive for as long as notifications are wanted.
  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription?

  /// Calls `onChange` (on an arbitrary thread) when an entry of the folder at `folder` whose
  /// name `matching` accepts may have been created or replaced: the conflict copies sync engines
  /// put beside a file (see "Devices" in the Data safety article).
  ///
  /// `folder` is the folder of a key's resolved file (see ``resolve(_:path:folders:)``), with its
  /// links resolved already, as the `url` of ``watch(_:onChange:)`` is.
  ///
  /// `matching` is called on the watcher's own thread for every name the folder's events carry:
  /// it must be quick and must not block. A file system that cannot watch a folder's entries
  /// returns `nil` (the default); copies are then still found whenever the file itself changes.
  func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription?

  /// ``watch(_:onChange:)`` of the file at `path` and ``watchEntries(of:matching:onChange:)`` of
  /// its folder as one subscription: what a file key watches. `onEntries` is called for the
  /// entries `entriesMatching` accepts.
  ///
  /// NB: a path, which a key keeps, and one subscription: `URL.path` is costly on Linux, and two
  /// routes of the process's watcher were a sizable part of a file key's creation.
  func watch(
    fileAt path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
    onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription?

  /// Takes the exclusive lock of the file at `url`, shared with every other process and every
  /// other storage context, waiting up to `timeout` while someone else holds it.
  ///
  /// The lock is taken on a lock file beside the target (`name.lock`), never on the target: an
  /// atomic replace gives the target a new inode. Keepsake holds it across every save's
  /// check-and-write and across transactions (data-safety rule "Processes that share a file lose
  /// nothing"; see the Data safety article).
  ///
  /// - Throws: ``FileSystemError``; ``FileSystemError/Reason/lockTimedOut(seconds:)`` when the
  ///   lock stayed held for `timeout`.
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock

  /// Whether a folder is at `url`.
  func folderExists(_ url: URL) -> Bool

  /// Whether the entry at `url` may be taken as belonging to the store at `store` (a sync
  /// engine's conflict copy of it, a synced folder's marker): not a symbolic link, and owned by
  /// the user who owns the store (its folder, while it has no file). In a folder other users can
  /// write, a link or a copy another user planted is never merged into the store.
  func belongsWithStore(_ url: URL, store: URL) -> Bool

  /// The same, creating the lock file's missing folder only when `creatingFolder`; otherwise
  /// its absence throws ``FileSystemError/Reason/folderRemoved``.
  func lockExclusively(_ url: URL, timeout: Duration, creatingFolder: Bool) throws -> FileLock

  /// What identifies the current version of the file at `url` (without reading it), or `nil`
  /// when no file exists: used to tell whether someone else replaced a file.
  ///
  /// - Throws: ``FileSystemError`` when the path cannot be examined, with
  ///   ``FileSystemError/Reason/linkLoop`` when it is a loop of symbolic links.
  func identity(of url: URL) throws -> FileIdentity?

  /// Asks for the file at `url`, which iCloud Drive has not downloaded yet (see
  /// ``NotDownloaded``), to be downloaded; the folder's watch sees it arrive. Does nothing where
  /// no file is ever held elsewhere (the default).
  func requestDownload(of url: URL)
}

extension FileSystem {
  /// Writes a new file by checking the name is free, then replacing atomically: for file systems
  /// that cannot do better (test doubles); the real and the in-memory ones never replace.
  package func createAtomically(_ data: Data, at url: URL) throws {
    if try identity(of: url) != nil {
      throw FileSystemError(.write, path: url.path, reason: .alreadyExists)
    }
    try writeAtomically(data, to: url)
  }

  /// Copies a file by reading it whole: for file systems that cannot do better (test doubles).
  package func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
    guard let data = try contents(of: source, maximumSize: Int.max) else { return false }
    try createAtomically(data, at: destination)
    return true
  }

  /// The identity, then the contents, through `URL`s: for file systems that cannot do better.
  package func contents(atPath path: String, maximumSize: Int) throws -> (
    data: Data, identity: FileIdentity?
  )? {
    let url = URL(fileURLWithPath: path, isDirectory: false)
    let identity = try identity(of: url)
    guard let data = try contents(of: url, maximumSize: maximumSize) else { return nil }
    return (data, identity)
  }

  /// The two watches, through `URL`s, one after the other: for file systems that cannot do
  /// better.
  package func watch(
    fileAt path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
    onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let file = watch(URL(fileURLWithPath: path, isDirectory: false), onChange: onChange)
    let folder = URL(fileURLWithPath: FolderPath.parent(of: path) ?? path, isDirectory: true)
    let entries = watchEntries(of: folder, matching: entriesMatching, onChange: onEntries)
    if file == nil && entries == nil { return nil }
    return StorageSubscription(
      onCancel: {
        file?.cancel()
        entries?.cancel()
      },
      failure: { file?.failure ?? entries?.failure })
  }

  /// The path as written, standardized: for file systems without symbolic links.
  package func resolve(_ url: URL) throws -> URL { url.standardizedFileURL }

  /// ``resolve(_:)`` itself, for file systems that keep nothing per folder.
  package func resolve(_ url: URL, path: String, folders: ResolvedFolders) throws -> URL {
    try resolve(url)
  }

  /// Names are case-sensitive, unless a file system says otherwise.
  package func foldsCase(inFolder path: String, folders: ResolvedFolders) -> Bool { false }

  /// Reads a whole file of at most ``FileSystemLimits/defaultMaximumFileSize`` bytes.
  ///
  /// The same as ``contents(of:maximumSize:)`` with the default limit: a FIFO, a device, a
  /// socket, a directory, a link loop or an oversized file is refused at once and left as it is.
  ///
  /// - Returns: The file's bytes, or `nil` when no file exists at `url`.
  /// - Throws: ``FileSystemError`` when the file exists but cannot be read.
  package func contents(of url: URL) throws -> Data? {
    try contents(of: url, maximumSize: FileSystemLimits.defaultMaximumFileSize)
  }
}

/// The folders whose links a storage context has resolved, by the path they were named by (see
/// ``FileSystem/resolve(_:path:folders:)``).
package final class ResolvedFolders: Sendable {
  private let paths = Mutex<[String: String]>([:])
  private let folding = Mutex<[String: Bool]>([:])

  /// Whether names in the folder at `path` ignore case, once asked, else `answer()` remembered.
  package func foldsCase(inFolder path: String, answer: () -> Bool) -> Bool {
    if let known = folding.withLock({ $0[path] }) { return known }
    let folds = answer()
    folding.withLock { $0[path] = folds }
    return folds
  }

  /// Creates an empty record.
  package init() {}

  /// The resolved path of the folder named `path`, if it was resolved.
  package subscript(path: String) -> String? {
    get { paths.withLock { $0[path] } }
    set { paths.withLock { $0[path] = newValue } }
  }
}

/// Identifies one version of a file: its inode, size, modification time and change time.
///
/// Two equal identities mean, in practice, the same bytes; an atomic replace always changes the
/// inode. The change time (`ctime`) is what makes an edit seen when it kept the size and put the
/// modification time back (`cp -p`, `rsync -t`, `touch -r`): no program can set it, and every
/// write moves it.
package struct FileIdentity: Hashable, Sendable {
  /// The file's inode (or, in memory, a number that changes with every write).
  package var inode: UInt64
  /// The size in bytes.
  package var size: Int64
  /// The modification time, in nanoseconds since 1970.
  package var modified: Int64
  /// The time the file's inode last changed, in nanoseconds since 1970 (0 where unknown).
  package var changed: Int64

  /// Creates an identity.
  package init(inode: UInt64, size: Int64, modified: Int64, changed: Int64 = 0) {
    self.inode = inode
    self.size = size
    self.modified = modified
    self.changed = changed
  }

  /// Whether `other` is this version of the file, its change time aside: a rename moves the
  /// change time of the file it moves, so a file swapped out by a save is compared this way.
  package func isSameVersion(as other: FileIdentity?) -> Bool {
    guard let other else { return false }
    return inode == other.inode && size == other.size && modified == other.modified
  }

  /// Whether the file's times are whole seconds.
  ///
  /// File systems that keep no finer times (FAT, HFS+, ext3 with small inodes, many network
  /// shares) give an edit within the same second the same identity: only the bytes tell. A
  /// change time of 0 is unknown (file system doubles): nothing is assumed.
  var hasWholeSecondTimes: Bool {
    changed != 0 && modified % 1_000_000_000 == 0 && changed % 1_000_000_000 == 0
  }
}

extension FileSystem {
  /// The check, then the write: the file system doubles that wrap another have no swap of
  /// names, so another writer could still land between the two.
  @discardableResult
  package func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    let found = try identity(of: url)
    guard found == expected else {
      throw FileSystemError(.write, path: url.path, reason: .replacedMeanwhile)
    }
    try writeAtomically(data, to: url)
    return nil
  }

  /// Doubles that wrap a disk keep their folders.
  package func folderExists(_ url: URL) -> Bool { true }

  /// Doubles have no permissions to set.
  package func writePrivately(_ data: Data, to url: URL) throws {
    try writeAtomically(data, to: url)
  }

  /// Doubles have a single user.
  package func belongsWithStore(_ url: URL, store: URL) -> Bool { true }

  /// Doubles lock as they do: those that wrap a disk create no folder of their own.
  package func lockExclusively(
    _ url: URL, timeout: Duration, creatingFolder: Bool
  ) throws -> FileLock {
    try lockExclusively(url, timeout: timeout)
  }

  /// Nothing to download: every file is on this device.
  package func requestDownload(of url: URL) {}

  /// No watch of a folder's entries: test doubles that wrap a disk see only the file's changes.
  package func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? { nil }

  /// Takes the exclusive lock of the file at `url`, waiting up to ``FileLock/defaultTimeout``.
  ///
  /// - Throws: ``FileSystemError``, as ``lockExclusively(_:timeout:)`` does.
  package func lockExclusively(_ url: URL) throws -> FileLock {
    try lockExclusively(url, timeout: FileLock.defaultTimeout)
  }
}
