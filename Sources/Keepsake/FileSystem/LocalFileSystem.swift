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
package struct LocalFileSystem: FileSystem {
  /// The system calls that change the disk: the real ones, or a recorder's (see ``SystemCalls``).
  let calls: SystemCalls

  /// Creates the real file system.
  package init() { calls = .live }

  /// A file system that makes its changes to the disk through `calls`: a recorder's, in tests
  /// of the write protocol.
  package init(calls: SystemCalls) { self.calls = calls }

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
  private func openRegularFile(_ path: String) throws -> (fd: Int32, info: stat)? {
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

  package func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try contents(atPath: url.path, maximumSize: maximumSize)?.data
  }

  /// NB: the identity is the open file's, so it is the version read, and costs no `stat` of its
  /// own: one of the seven system calls of a file key's creation.
  package func contents(
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
  package static func readSome(
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

  package func writeAtomically(_ data: Data, to url: URL) throws {
    try writeAtomically(data, to: url, privately: false)
  }

  package func writePrivately(_ data: Data, to url: URL) throws {
    try writeAtomically(data, to: url, privately: true)
  }

  private func writeAtomically(_ data: Data, to url: URL, privately: Bool) throws {
    // Write through a symbolic link to its target, so the link survives, also a link whose
    // target does not exist yet (its target is created).
    let target = try resolve(url, for: .write)
    let folder = target.deletingLastPathComponent()
    // NB: a file that exists has its folder: a `mkdir` for nothing on every save was one of the
    // system calls a transaction made twice.
    let existing = try fileInfo(target.path)
    if existing == nil { try createFolder(folder, mode: privately ? 0o700 : 0o777) }
    // NB: a private file is never wider than 0600, even over an older file that was.
    let carried = privately ? nil : existing.map { (target.path, $0) }
    let temporary = try writeTemporary(
      besides: target, carrying: carried, mode: privately ? 0o600 : 0o666
    ) { fd, path in
      try writeAll(data, to: fd, path: path)
    }
    guard calls.rename(temporary.path, target.path) == 0 else {
      let code = errno
      _ = calls.unlink(temporary.path)
      throw FileSystemError(.rename, path: target.path, reason: .init(errno: code))
    }
    // The rename is only durable once the folder's entry is on disk.
    try syncFolder(folder)
  }

  package func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws {
    let target = try resolve(url, for: .write)
    let folder = target.deletingLastPathComponent()
    let changedMeanwhile = FileSystemError(.write, path: target.path, reason: .replacedMeanwhile)
    guard let existing = try fileInfo(target.path) else {
      // The file is gone: someone removed it since it was read, or it never was.
      if expected != nil { throw changedMeanwhile }
      if creatingFolder {
        try createFolder(folder)
      } else if try fileInfo(folder.path) == nil {
        throw FileSystemError(.write, path: target.path, reason: .folderRemoved)
      }
      let temporary = try writeTemporary(besides: target, carrying: nil) { fd, path in
        try writeAll(data, to: fd, path: path)
      }
      do {
        try place(temporary, at: target)
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        // A program created the file at this instant: it wins, and the save merges with it.
        throw changedMeanwhile
      }
      return
    }
    guard Self.identity(existing) == expected else { throw changedMeanwhile }
    let temporary = try writeTemporary(besides: target, carrying: (target.path, existing)) {
      fd, path in try writeAll(data, to: fd, path: path)
    }
    // NB: looked at again just before the swap. A program's rename that landed while the
    // temporary file was written and flushed (milliseconds) is then refused without our file
    // ever taking its place, not even for the instant a swap back takes: a sync engine's
    // scanner reading the file in that instant would send our version to other devices.
    guard (try? fileInfo(target.path)).flatMap({ $0.map(Self.identity) }) == expected else {
      _ = calls.unlink(temporary.path)
      throw changedMeanwhile
    }
    guard calls.exchange(temporary.path, target.path) == 0 else {
      let code = errno
      guard Self.cannotExchange(code) else {
        _ = calls.unlink(temporary.path)
        throw FileSystemError(.rename, path: target.path, reason: .init(errno: code))
      }
      // NB: the file system cannot swap names: the look just before leaves only the instant
      // between it and the rename to a writer that ignores the lock.
      try rename(temporary, over: target)
      try syncFolder(folder)
      return
    }
    var out = stat()
    let swappedOut = lstat(temporary.path, &out) == 0 ? Self.identity(out) : nil
    guard swappedOut?.isSameVersion(as: expected) ?? false else {
      try swapBack(temporary, at: target)
      throw changedMeanwhile
    }
    _ = calls.unlink(temporary.path)
    // The swap is only durable once the folder's entries are on disk.
    try syncFolder(folder)
  }

  /// Puts back the file a save swapped out when it was not the one the save was based on.
  ///
  /// It is first given a name that says what it is (see ``TemporaryFile/swappedOutName(for:)``),
  /// so a crash before it is back in place leaves it for the next process to keep, never for
  /// the clean-up of temporary files to remove.
  private func swapBack(_ temporary: URL, at target: URL) throws {
    let kept = target.deletingLastPathComponent().appendingPathComponent(
      TemporaryFile.swappedOutName(for: target.lastPathComponent))
    guard calls.rename(temporary.path, kept.path) == 0 else {
      throw FileSystemError(.rename, path: target.path, reason: .init(errno: errno))
    }
    guard calls.exchange(kept.path, target.path) == 0 else {
      throw FileSystemError(.rename, path: target.path, reason: .init(errno: errno))
    }
    // Ours, swapped out again: never acknowledged, so nothing is lost with it.
    _ = calls.unlink(kept.path)
    try syncFolder(target.deletingLastPathComponent())
  }

  /// Whether a swap of names failed because the file system (or the C library) cannot swap.
  private static func cannotExchange(_ code: Int32) -> Bool {
    code == EINVAL || code == ENOSYS || code == ENOTSUP || code == EOPNOTSUPP || code == ENOTTY
  }

  package func folderExists(_ url: URL) -> Bool {
    var info = stat()
    return stat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  package func belongsWithStore(_ url: URL, store: URL) -> Bool {
    var entry = stat()
    guard lstat(url.path, &entry) == 0, entry.st_mode & S_IFMT != S_IFLNK else { return false }
    var owner = stat()
    guard
      stat(store.path, &owner) == 0
        || stat(store.deletingLastPathComponent().path, &owner) == 0
    else { return false }
    return entry.st_uid == owner.st_uid
  }

  package func createAtomically(_ data: Data, at url: URL) throws {
    let target = try resolve(url, for: .write)
    try createFolder(target.deletingLastPathComponent())
    // NB: a copy Keepsake keeps beside a file (conflict, quarantine, unsaved change) is never
    // readable by more users than the file itself: it gets the file's permissions in its
    // `open`. A copy of nothing known is private to its owner.
    let original = Quarantine.originalURL(of: target).flatMap { try? fileInfo($0.path) }
    let mode = original.map { $0.st_mode & 0o777 } ?? 0o600
    // A change kept because its save was refused must be writable while the device is locked
    // (a protected file is what refused it, and iOS may end the app any moment): Data
    // Protection's class C, writable once the device was unlocked after starting.
    let unsaved = Quarantine.parse(target.lastPathComponent)?.marker == Quarantine.unsavedMarker
    let temporary = try writeTemporary(
      besides: target, carrying: nil, mode: mode,
      protectionClass: unsaved ? ProtectionClassCalls.writableAfterFirstUnlock : nil
    ) { fd, path in
      try writeAll(data, to: fd, path: path)
    }
    try place(temporary, at: target)
  }

  package func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
    let path = source.path
    // NB: opened and examined as a read is, so a FIFO or a device is refused, not copied, and
    // nothing blocks.
    guard let (fd, info) = try openRegularFile(path) else { return false }
    defer { _ = calls.close(fd) }
    let target = try resolve(destination, for: .write)
    // A second name for the same file: instant whatever its size, reads nothing, and never
    // replaces what has the name already.
    if calls.link(path, target.path) == 0 {
      try syncFolder(target.deletingLastPathComponent())
      return true
    }
    let code = errno
    guard Self.cannotLink(code) else {
      throw FileSystemError(.write, path: target.path, reason: .init(errno: code))
    }
    // A file system without hard links: copy the bytes, a block at a time.
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    // The copy keeps the file's metadata, as a second name for it would.
    let temporary = try writeTemporary(besides: target, carrying: (path, info)) { out, name in
      try copyAll(from: fd, source: path, to: out, path: name)
    }
    try place(temporary, at: target)
    return true
  }

  package func identity(of url: URL) throws -> FileIdentity? {
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

  package func requestDownload(of url: URL) {
    #if canImport(Darwin)
      // NB: fails for a file outside iCloud Drive, which has nothing to download.
      try? FileManager.default.startDownloadingUbiquitousItem(at: url)
    #endif
  }

  private static func identity(_ info: stat) -> FileIdentity {
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

  package func removeItem(at url: URL) throws {
    if calls.unlink(url.path) != 0 && errno != ENOENT {
      throw FileSystemError(.remove, path: url.path, reason: .init(errno: errno))
    }
  }

  /// The names in a folder; names that are not valid UTF-8 are left out (see ``PathBytes``):
  /// Keepsake cannot name them exactly, so it never touches them.
  package func contentsOfDirectory(at url: URL) throws -> [String] {
    guard let dir = opendir(url.path) else {
      if errno == ENOENT { return [] }
      throw FileSystemError(.list, path: url.path, reason: .init(errno: errno))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      // NB: the name read in place, to its terminator: copying the entry's 256-byte name and
      // scanning it as a generic collection cost about 2,000 instructions a name, and the
      // first key made in a folder of a hundred files lists it.
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

  package func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    // NB: `url` is resolved by the caller (a key resolves its file once, at creation): resolving
    // again here cost a `readlink` per folder of the path on every key made (measured).
    FolderWatcher.shared.subscribe(path: url.path, onChange: onChange)
  }

  package func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    // NB: not resolved again: a key's folder is the folder of its resolved file, the one its
    // own watch names (resolving it cost 14,000 instructions and a system call per component
    // of every file key's creation).
    FolderWatcher.shared.subscribe(entriesAt: folder.path, matching: matching, onChange: onChange)
  }

  package func watch(
    fileAt path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
    onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    // NB: `path` is resolved already, as in `watch(_:onChange:)`.
    FolderWatcher.shared.subscribe(
      path: path, entriesMatching: entriesMatching, onEntries: onEntries, onChange: onChange)
  }

  // MARK: - Helpers

  /// Creates a temporary file beside `target`, gives it the metadata of the file `carrying`
  /// names (its path and `stat`; see ``FileMetadata``), fills it with `fill`, and flushes it to
  /// disk; removes it again when anything fails.
  ///
  /// Errors name `target`, the file the app knows: the temporary file is Keepsake's own.
  ///
  /// The file is created with its final permissions (those of the file it carries the metadata
  /// of, or `mode`), never wider, so no other user can open it while it is written: a private
  /// store's bytes are never readable for an instant. `O_EXCL` never follows a link planted at
  /// its name.
  private func writeTemporary(
    besides target: URL, carrying source: (path: String, info: stat)?, mode: mode_t = 0o666,
    protectionClass: Int32? = nil, fill: (Int32, String) throws -> Void
  ) throws -> URL {
    let temporary = target.deletingLastPathComponent().appendingPathComponent(
      TemporaryFile.name(for: target.lastPathComponent))
    let permissions = source.map { $0.info.st_mode & 0o777 } ?? mode
    let fd = calls.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
    guard fd >= 0 else {
      throw FileSystemError(.write, path: target.path, reason: .init(errno: errno))
    }
    var succeeded = false
    defer {
      if !succeeded { _ = calls.unlink(temporary.path) }
    }
    do {
      defer { _ = calls.close(fd) }
      if let source {
        try FileMetadata.carryOver(from: source.path, info: source.info, to: fd, calls: calls)
      }
      if let protectionClass, let classes = calls.protectionClasses {
        // NB: best effort: a class the volume refuses leaves the folder's default.
        _ = classes.set(fd, protectionClass)
      }
      try fill(fd, target.path)
      guard calls.fullFlush(fd) == 0 else {
        throw FileSystemError(.fsync, path: target.path, reason: .init(errno: errno))
      }
    }
    succeeded = true
    return temporary
  }

  /// Gives the flushed `temporary` file the name `target`, only if nothing has it yet, and
  /// makes that durable.
  ///
  /// NB: `link` then `unlink` rather than `rename`, which would replace whatever has the name:
  /// two processes keeping a copy in the same second must both keep theirs. File systems without
  /// hard links get a check then a rename, which only a writer racing in between could defeat.
  private func place(_ temporary: URL, at target: URL) throws {
    if calls.link(temporary.path, target.path) == 0 {
      // Removed before the folder is flushed, so one flush makes both changes durable.
      _ = calls.unlink(temporary.path)
    } else {
      let code = errno
      var info = stat()
      let failure: FileSystemError? =
        !Self.cannotLink(code)
        ? FileSystemError(.write, path: target.path, reason: .init(errno: code))
        : lstat(target.path, &info) == 0
          ? FileSystemError(.write, path: target.path, reason: .alreadyExists) : nil
      if let failure {
        _ = calls.unlink(temporary.path)
        throw failure
      }
      try rename(temporary, over: target)
    }
    try syncFolder(target.deletingLastPathComponent())
  }

  /// Renames `temporary` over `target`; removes it when that fails.
  private func rename(_ temporary: URL, over target: URL) throws {
    guard calls.rename(temporary.path, target.path) == 0 else {
      let code = errno
      _ = calls.unlink(temporary.path)
      throw FileSystemError(.rename, path: target.path, reason: .init(errno: code))
    }
  }

  /// Whether `link` failed because the file system has no hard links (rather than because of
  /// the names).
  private static func cannotLink(_ code: Int32) -> Bool {
    code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == EXDEV
  }

  /// Copies what is left to read from `source` into `out`, a block at a time.
  private func copyAll(from source: Int32, source path: String, to out: Int32, path outPath: String)
    throws
  {
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileSystemError(.read, path: path, reason: .init(errno: errno))
      }
      if count == 0 { return }
      try writeAll(Data(buffer[..<count]), to: out, path: outPath, appending: true)
    }
  }

  /// Writes all of `data` at the start of `fd`, or, `appending`, at its end.
  private func writeAll(_ data: Data, to fd: Int32, path: String, appending: Bool = false) throws {
    let start = appending ? Int(lseek(fd, 0, SEEK_END)) : 0
    try data.withUnsafeBytes { buffer in
      // An empty file is created, flushed and renamed like any other: nothing to write.
      guard buffer.baseAddress != nil else { return }
      var offset = 0
      while offset < buffer.count {
        let count = calls.write(
          fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), start + offset)
        if count < 0 {
          if errno == EINTR { continue }
          throw FileSystemError(.write, path: path, reason: .init(errno: errno))
        }
        if count == 0 {
          throw FileSystemError(
            .write, path: path, reason: .shortWrite(written: offset, expected: buffer.count))
        }
        offset += count
      }
    }
  }

  /// The `stat` of the file at `path` (its permissions and owner), or `nil` when there is none
  /// yet.
  ///
  /// - Throws: ``FileSystemError/Reason/linkLoop`` for a loop of symbolic links made after the
  ///   path was resolved: renaming over it would replace a link the user made (rule "Bad files
  ///   get a clear error at once").
  private func fileInfo(_ path: String) throws -> stat? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      if errno == ELOOP { throw FileSystemError(.write, path: path, reason: .linkLoop) }
      return nil
    }
    return info
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

  /// Creates `folder` and any missing folder above it, each one durably.
  ///
  /// NB: a new folder is an entry in its parent, and like a renamed file it survives a power cut
  /// only once the parent is flushed: without that, a first save into a new folder could be
  /// acknowledged and then lost with the folder (found by the power-loss campaign under the
  /// POSIX model).
  func createFolder(_ folder: URL, mode: mode_t = 0o777) throws {
    if calls.mkdir(folder.path, mode) == 0 {
      try syncFolder(folder.deletingLastPathComponent())
      return
    }
    if errno == EEXIST { return }
    guard errno == ENOENT, folder.pathComponents.count > 1 else {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
    try createFolder(folder.deletingLastPathComponent(), mode: mode)
    if calls.mkdir(folder.path, mode) == 0 {
      try syncFolder(folder.deletingLastPathComponent())
    } else if errno != EEXIST {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
  }

  /// Flushes the entries of `folder` (a rename, a new name, a new folder) to stable storage.
  ///
  /// NB: through the same full flush as a file's bytes: on Apple platforms a plain `fsync`
  /// leaves the folder's entry in the drive's cache, where a power loss can undo an
  /// acknowledged save (data-safety rule "An acknowledged save is on disk").
  private func syncFolder(_ folder: URL) throws {
    let fd = calls.open(folder.path, O_RDONLY | O_CLOEXEC, 0)
    guard fd >= 0 else {
      throw FileSystemError(.fsync, path: folder.path, reason: .init(errno: errno))
    }
    defer { _ = calls.close(fd) }
    guard calls.fullFlush(fd) == 0 else {
      throw FileSystemError(.fsync, path: folder.path, reason: .init(errno: errno))
    }
  }
}

/// The C `read`, reachable from inside functions with a parameter of that name.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}
