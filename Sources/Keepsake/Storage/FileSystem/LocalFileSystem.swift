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
/// symbolic link with a regular file. This writer keeps the file's permissions and writes through
/// a link to its target.
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

  package func contents(of url: URL, maximumSize: Int) throws -> Data? {
    precondition(maximumSize >= 0, "maximumSize must not be negative, not \(maximumSize)")
    let path = url.path
    // NB: rule "Bad files get a clear error at once". O_NONBLOCK so opening a FIFO that has no
    // writer returns at once instead of waiting for one; O_NOCTTY so a terminal at the path never
    // becomes the controlling one.
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
    defer { _ = calls.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw FileSystemError(.read, path: path, reason: .init(errno: errno))
    }
    // Checked on the open descriptor, not the path, so nothing swapped in between is read.
    if let kind = Self.kind(of: info.st_mode) {
      throw FileSystemError(.read, path: path, reason: .notARegularFile(kind: kind))
    }
    if info.st_size > Int64(maximumSize) {
      throw FileSystemError(
        .read, path: path, reason: .tooLarge(size: Int64(info.st_size), limit: maximumSize))
    }
    // A regular file never blocks anyway; plain blocking reads say what the loop below expects.
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    // One byte more than the size, so reading an unchanged file ends without growing the
    // buffer; the size can still change while reading (another process writing in place), and
    // the byte over the limit is what proves a file grew too large. The buffer never holds more
    // than `maximumSize + 1` bytes.
    let ceiling = maximumSize == Int.max ? Int.max : maximumSize + 1
    var data = Data(count: Int(max(info.st_size, 0)) + 1)
    var total = 0
    while true {
      if total == data.count {
        data.count += min(ceiling - data.count, max(4096, data.count / 2))
      }
      let count = data.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return read(fd, base + total, buffer.count - total)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileSystemError(.read, path: path, reason: .init(errno: errno))
      }
      if count == 0 { break }
      total += count
      if total > maximumSize {
        var now = stat()
        let size = fstat(fd, &now) == 0 ? max(Int64(now.st_size), Int64(total)) : Int64(total)
        throw FileSystemError(.read, path: path, reason: .tooLarge(size: size, limit: maximumSize))
      }
    }
    data.count = total
    return data
  }

  package func writeAtomically(_ data: Data, to url: URL) throws {
    // Write through a symbolic link to its target, so the link survives.
    let target = url.resolvingSymlinksInPath()
    let folder = target.deletingLastPathComponent()
    try createFolder(folder)
    let temporary = folder.appendingPathComponent(TemporaryFile.name(for: target.lastPathComponent))
    let existingMode = try fileMode(target.path)

    let fd = calls.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard fd >= 0 else {
      throw FileSystemError(.write, path: temporary.path, reason: .init(errno: errno))
    }
    var succeeded = false
    defer {
      if !succeeded { _ = calls.unlink(temporary.path) }
    }
    do {
      defer { _ = calls.close(fd) }
      if let existingMode { _ = calls.fchmod(fd, existingMode) }
      try writeAll(data, to: fd, path: temporary.path)
      guard calls.fullFsync(fd) == 0 else {
        throw FileSystemError(.fsync, path: temporary.path, reason: .init(errno: errno))
      }
    }
    guard calls.rename(temporary.path, target.path) == 0 else {
      throw FileSystemError(.rename, path: target.path, reason: .init(errno: errno))
    }
    succeeded = true
    // The rename is only durable once the folder's entry is on disk.
    try syncFolder(folder)
  }

  package func identity(of url: URL) throws -> FileIdentity? {
    var info = stat()
    guard stat(url.path, &info) == 0 else {
      if errno == ENOENT { return nil }
      throw FileSystemError(.read, path: url.path, reason: .init(errno: errno))
    }
    #if canImport(Darwin)
      let modified =
        Int64(info.st_mtimespec.tv_sec) * 1_000_000_000
        + Int64(info.st_mtimespec.tv_nsec)
    #else
      let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    #endif
    return FileIdentity(inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified)
  }

  package func removeItem(at url: URL) throws {
    if calls.unlink(url.path) != 0 && errno != ENOENT {
      throw FileSystemError(.remove, path: url.path, reason: .init(errno: errno))
    }
  }

  package func contentsOfDirectory(at url: URL) throws -> [String] {
    guard let dir = opendir(url.path) else {
      if errno == ENOENT { return [] }
      throw FileSystemError(.list, path: url.path, reason: .init(errno: errno))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  package func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    FolderWatcher.watch(url.resolvingSymlinksInPath(), onChange: onChange)
  }

  package func watchEntries(
    of folder: URL, matching: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    FolderWatcher.shared.subscribe(
      entriesOf: folder.resolvingSymlinksInPath(), matching: matching, onChange: onChange)
  }

  // MARK: - Helpers

  private func writeAll(_ data: Data, to fd: Int32, path: String) throws {
    try data.withUnsafeBytes { buffer in
      // An empty file is created, flushed and renamed like any other: nothing to write.
      guard buffer.baseAddress != nil else { return }
      var offset = 0
      while offset < buffer.count {
        let count = calls.write(
          fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), offset)
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

  /// The permissions of the file at `path`, or `nil` when there is none yet.
  ///
  /// - Throws: ``FileSystemError/Reason/linkLoop`` for a loop of symbolic links, which
  ///   `resolvingSymlinksInPath()` returns unresolved: renaming over it would replace a link
  ///   the user made (rule "Bad files get a clear error at once").
  private func fileMode(_ path: String) throws -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      if errno == ELOOP { throw FileSystemError(.write, path: path, reason: .linkLoop) }
      return nil
    }
    return info.st_mode & 0o7777
  }

  /// What kind of file `mode` describes, as an indefinite noun, or `nil` for a regular file.
  private static func kind(of mode: mode_t) -> String? {
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
  func createFolder(_ folder: URL) throws {
    if calls.mkdir(folder.path, 0o777) == 0 {
      try syncFolder(folder.deletingLastPathComponent())
      return
    }
    if errno == EEXIST { return }
    guard errno == ENOENT, folder.pathComponents.count > 1 else {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
    try createFolder(folder.deletingLastPathComponent())
    if calls.mkdir(folder.path, 0o777) == 0 {
      try syncFolder(folder.deletingLastPathComponent())
    } else if errno != EEXIST {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
  }

  private func syncFolder(_ folder: URL) throws {
    let fd = calls.open(folder.path, O_RDONLY | O_CLOEXEC, 0)
    guard fd >= 0 else {
      throw FileSystemError(.fsync, path: folder.path, reason: .init(errno: errno))
    }
    defer { _ = calls.close(fd) }
    guard calls.fsync(fd) == 0 else {
      throw FileSystemError(.fsync, path: folder.path, reason: .init(errno: errno))
    }
  }
}
