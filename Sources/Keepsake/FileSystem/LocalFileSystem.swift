import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The real disk, written with the atomic, durable protocol of data-safety rule "Writes are atomic
/// and durable" (see the Data safety article).
///
/// `Data.write(options: .atomic)` is not used: measured on Linux it never flushes the folder (so
/// the rename may not survive a power loss), resets a `0600` file to `0644`, and replaces a
/// symbolic link with a regular file. This writer keeps the file's metadata (its permissions,
/// owner, extended attributes and Data Protection class; see ``FileMetadata``) and writes through
/// a link to its target, also a link whose target does not exist yet (see ``resolve(_:)``).
///
/// Reading refuses at once what it must not read (rule "Bad files get a clear error at once"): a
/// FIFO, a device, a socket or a directory is found by `fstat` on a descriptor opened without
/// blocking, before a byte is read; a file over the size limit is refused by its size, and one that
/// grows past it while being read by the byte over the limit. A loop of symbolic links is refused
/// by reads and writes alike. All of them are left as they are.
struct LocalFileSystem: FileSystem {
  /// The system calls that change the disk: the real ones, or a recorder's (see ``SystemCalls``).
  let calls: SystemCalls

  /// Creates the real file system.
  init() { calls = .live }

  /// A file system that makes its changes to the disk through `calls`: a recorder's, in tests
  /// of the write protocol.
  init(calls: SystemCalls) { self.calls = calls }

  /// Opens the regular file at `path` for reading, without blocking, and examines it: `nil`
  /// when nothing is there.
  ///
  /// NB: rule "Bad files get a clear error at once". O_NONBLOCK so opening a FIFO that has no
  /// writer returns at once instead of waiting for one; O_NOCTTY so a terminal at the path never
  /// becomes the controlling one; the kind is checked on the open descriptor, not the path, so
  /// nothing swapped in between is read.
  ///
  /// - Throws: ``FileSystemError`` for a FIFO, device, socket or folder, or what `open` and
  ///   `fstat` ran into.
  func openRegularFile(_ path: String) throws -> (fd: Int32, info: stat)? {
    #if canImport(Darwin)
      // NB: a dataless file (iCloud Drive on macOS) is downloaded by its first read, which
      // blocks meanwhile: its flags are read first, from the metadata, which never blocks.
      var flags = stat()
      if stat(path, &flags) == 0 { try refuseDataless(path, flags.st_flags) }
    #endif
    let fd = calls.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0)
    if fd < 0 {
      let code = errno
      if code == ENOENT { return nil }
      // A socket cannot be opened at all (ENXIO, "no such device"): say what is there instead.
      if code == ENXIO, let kind = Self.specialKind(atPath: path) {
        throw FileSystemError(.read, path: path, reason: .notARegularFile(kind: kind))
      }
      throw FileSystemError(.read, path: path, reason: .init(errno: code))
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      _ = calls.close(fd)
      throw FileSystemError(.read, path: path, reason: .init(errno: code))
    }
    if let kind = Self.kind(of: info.st_mode) {
      _ = calls.close(fd)
      throw FileSystemError(.read, path: path, reason: .notARegularFile(kind: kind))
    }
    return (fd, info)
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try contents(atPath: url.path, maximumSize: maximumSize)?.data
  }

  /// NB: the identity is the open file's, so it is the version read, and costs no `stat` of its
  /// own: one of the seven system calls of a file key's creation.
  func contents(
    atPath path: String, maximumSize: Int
  ) throws -> (data: Data, identity: FileIdentity?)? {
    precondition(maximumSize >= 0, "maximumSize must not be negative, not \(maximumSize)")
    guard let (fd, info) = try openRegularFile(path) else { return nil }
    defer { _ = calls.close(fd) }
    if info.st_size > Int64(maximumSize) {
      throw FileSystemError(
        .read, path: path, reason: .tooLarge(size: Int64(info.st_size), limit: maximumSize))
    }
    var clearedNonBlocking = false
    // One byte more than the size, so reading an unchanged file ends without growing the
    // buffer; the size can still change while reading (another process writing in place), and
    // the byte over the limit is what proves a file grew too large. The buffer never holds more
    // than `maximumSize + 1` bytes.
    let ceiling = maximumSize == Int.max ? Int.max : maximumSize + 1
    let size = Int(max(info.st_size, 0))
    var data = Data(count: size + 1)
    var total = 0
    while true {
      if total == data.count {
        data.count += min(ceiling - data.count, max(4096, data.count / 2))
      }
      let asked = data.count - total
      let count = data.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Self.readSome(fd, base + total, buffer.count - total, &clearedNonBlocking)
      }
      if count < 0 { throw FileSystemError(.read, path: path, reason: .init(errno: errno)) }
      if count == 0 { break }
      total += count
      // NB: fewer bytes than asked, and exactly the size the file had when opened: the end, as a
      // local file system answers it (it fills a read from what the file holds), without a
      // last read to see 0: one of a file key's six system calls. A file that grew
      // meanwhile fills the byte beyond its size, and is read on.
      if count < asked && total == size { break }
      if total > maximumSize {
        var now = stat()
        let size = fstat(fd, &now) == 0 ? max(Int64(now.st_size), Int64(total)) : Int64(total)
        throw FileSystemError(.read, path: path, reason: .tooLarge(size: size, limit: maximumSize))
      }
    }
    data.count = total
    return (data, Self.identity(info))
  }

  /// One `read` of up to `count` bytes into `buffer`, interrupted reads retried.
  ///
  /// Returns the bytes read, 0 at the end, or -1 with `errno` set.
  ///
  /// NB: `O_NONBLOCK` (which kept the open from hanging on a FIFO) is left on: a regular file's
  /// reads ignore it, and clearing it first cost two system calls per read. A file
  /// system that answers `EAGAIN` anyway has it cleared (`clearedNonBlocking`) and the read
  /// retried, once; `read` is the system's, or a test's.
  static func readSome(
    _ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int,
    _ clearedNonBlocking: inout Bool,
    read: (Int32, UnsafeMutableRawPointer, Int) -> Int = { fd, buffer, count in
      systemRead(fd, buffer, count)
    }
  ) -> Int {
    while true {
      let result = read(fd, buffer, count)
      guard result < 0 else { return result }
      let code = errno
      if code == EINTR { continue }
      if (code == EAGAIN || code == EWOULDBLOCK) && !clearedNonBlocking {
        clearedNonBlocking = true
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 { continue }
      }
      errno = code
      return -1
    }
  }

  func identity(of url: URL) throws -> FileIdentity? {
    var info = stat()
    guard stat(url.path, &info) == 0 else {
      if errno == ENOENT { return nil }
      throw FileSystemError(.read, path: url.path, reason: .init(errno: errno))
    }
    #if canImport(Darwin)
      try refuseDataless(url.path, info.st_flags)
    #endif
    return Self.identity(info)
  }

  /// Throws ``FileSystemError/Reason/notDownloaded`` for a file whose `st_flags` are `flags`
  /// when it is dataless (see ``NotDownloaded``), and asks for it to be downloaded.
  private func refuseDataless(_ path: String, _ flags: UInt32) throws {
    guard NotDownloaded.isDataless(flags: flags) else { return }
    requestDownload(of: URL(fileURLWithPath: path, isDirectory: false))
    throw NotDownloaded.error(path)
  }

  func requestDownload(of url: URL) {
    #if canImport(Darwin)
      // NB: fails for a file outside iCloud Drive, which has nothing to download.
      try? FileManager.default.startDownloadingUbiquitousItem(at: url)
    #endif
  }

  static func identity(_ info: stat) -> FileIdentity {
    #if canImport(Darwin)
      let modified =
        Int64(info.st_mtimespec.tv_sec) * 1_000_000_000
        + Int64(info.st_mtimespec.tv_nsec)
      let changed =
        Int64(info.st_ctimespec.tv_sec) * 1_000_000_000
        + Int64(info.st_ctimespec.tv_nsec)
    #else
      let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
      let changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    #endif
    return FileIdentity(
      inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified, changed: changed)
  }

  func folderExists(_ url: URL) -> Bool {
    var info = stat()
    return stat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  func belongsWithStore(_ url: URL, store: URL) -> Bool {
    var entry = stat()
    guard lstat(url.path, &entry) == 0, entry.st_mode & S_IFMT != S_IFLNK else { return false }
    var owner = stat()
    guard
      stat(store.path, &owner) == 0
        || stat(store.deletingLastPathComponent().path, &owner) == 0
    else { return false }
    return entry.st_uid == owner.st_uid
  }

  func removeItem(at url: URL) throws {
    if calls.unlink(url.path) != 0 && errno != ENOENT {
      throw FileSystemError(.remove, path: url.path, reason: .init(errno: errno))
    }
  }

  /// The names in a folder; names that are not valid UTF-8 are left out (see ``PathBytes``):
  /// Keepsake cannot name them exactly, so it never touches them.
  func contentsOfDirectory(at url: URL) throws -> [String] {
    guard let dir = opendir(url.path) else {
      if errno == ENOENT { return [] }
      throw FileSystemError(.list, path: url.path, reason: .init(errno: errno))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      // NB: the name read in place, to its terminator: copying the entry's 256-byte name and
      // scanning it as a generic collection was costly for every name, and the first key made
      // in a folder of a hundred files lists it.
      let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> String? in
        guard let start = raw.baseAddress?.assumingMemoryBound(to: CChar.self),
          strnlen(start, raw.count) < raw.count
        else { return nil }
        return PathBytes.string(cString: start)
      }
      if let name, name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    // NB: `url` is resolved by the caller (a key resolves its file once, at creation): resolving
    // again here cost a `readlink` per folder of the path on every key made.
    FolderWatcher.shared.subscribe(path: url.path, onChange: onChange)
  }

  func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    // NB: not resolved again: a key's folder is the folder of its resolved file, the one its
    // own watch names (resolving it was costly work and a system call per component in every
    // file key's creation).
    FolderWatcher.shared.subscribe(entriesAt: folder.path, matching: matching, onChange: onChange)
  }

  func watch(
    fileAt path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
    onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    // NB: `path` is resolved already, as in `watch(_:onChange:)`.
    FolderWatcher.shared.subscribe(
      path: path, entriesMatching: entriesMatching, onEntries: onEntries, onChange: onChange)
  }

  /// What kind of file `mode` describes, as an indefinite noun, or `nil` for a regular file.
  static func kind(of mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "a special file"
    }
  }

  /// What kind of special file is at `path`, or `nil` when it is a regular file or cannot be
  /// examined.
  private static func specialKind(atPath path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return kind(of: info.st_mode)
  }

}

/// The C `read`, reachable from inside functions with a parameter of that name.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}

extension SystemCalls {
  /// The real disk, changed through these calls: what the package's tools give a storage context
  /// (``live`` for the real calls, a recorder's for a power-loss test).
  package var fileSystem: any FileSystem { LocalFileSystem(calls: self) }
}
