import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// The one write path of every file Keepsake writes on the real disk (data-safety rule "Writes
// are atomic and durable"): a temporary file with the metadata of the file it replaces, flushed;
// swapped in for that file, and what came out compared with the version the writer read; the
// folder flushed. A key's save, a preferences suite, the merge of a sync engine's copy, a kept
// change and the `keepsake` tool's restore all come through here (see the Data safety
// article's "Programs that do not take the lock"); conflict copies are made without replacing
// anything, and this device's own state written privately.
extension LocalFileSystem {
  func writeAtomically(_ data: Data, to url: URL) throws {
    try writeAtomically(data, to: url, privately: false)
  }

  func writePrivately(_ data: Data, to url: URL) throws {
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
    try flushFolder(folder)
  }

  @discardableResult
  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    let target = try resolve(url, for: .write)
    let folder = target.deletingLastPathComponent()
    // NB: the path made once (a URL's `path` is string work on Linux), and the error only when
    // it is thrown.
    let path = target.path
    var changedMeanwhile: FileSystemError {
      FileSystemError(.write, path: path, reason: .replacedMeanwhile)
    }
    guard let existing = try fileInfo(path) else {
      // The file is gone: someone removed it since it was read, or it never was.
      if expected != nil { throw changedMeanwhile }
      if creatingFolder {
        try createFolder(folder)
      } else if try fileInfo(folder.path) == nil {
        throw FileSystemError(.write, path: path, reason: .folderRemoved)
      }
      let temporary = try writeTemporary(besides: target, carrying: nil) { fd, path in
        try writeAll(data, to: fd, path: path)
      }
      let written = WrittenFile(path: temporary.path)
      do {
        try place(temporary, at: target)
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        // A program created the file at this instant: it wins, and the save merges with it.
        throw changedMeanwhile
      }
      return written.identity()
    }
    guard Self.identity(existing) == expected else { throw changedMeanwhile }
    let temporary = try writeTemporary(besides: target, carrying: (path, existing)) {
      fd, path in try writeAll(data, to: fd, path: path)
    }
    let temporaryPath = temporary.path
    let written = WrittenFile(path: temporaryPath)
    // NB: looked at again just before the swap. A program's rename that landed while the
    // temporary file was written and flushed (milliseconds) is then refused without our file
    // ever taking its place, not even for the instant a swap back takes: a sync engine's
    // scanner reading the file in that instant would send our version to other devices.
    guard (try? fileInfo(path)).flatMap({ $0.map(Self.identity) }) == expected else {
      _ = calls.unlink(temporaryPath)
      throw changedMeanwhile
    }
    guard calls.exchange(temporaryPath, path) == 0 else {
      let code = errno
      guard Self.cannotExchange(code) else {
        _ = calls.unlink(temporaryPath)
        throw FileSystemError(.rename, path: path, reason: .init(errno: code))
      }
      // NB: the file system cannot swap names: the look just before leaves only the instant
      // between it and the rename to a writer that ignores the lock.
      try rename(temporary, over: target)
      try flushFolder(folder)
      return written.identity()
    }
    var out = stat()
    let swappedOut = lstat(temporaryPath, &out) == 0 ? Self.identity(out) : nil
    guard swappedOut?.isSameVersion(as: expected) ?? false else {
      try swapBack(temporary, at: target)
      throw changedMeanwhile
    }
    _ = calls.unlink(temporaryPath)
    // The swap is only durable once the folder's entries are on disk.
    try flushFolder(folder)
    return written.identity()
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
    try flushFolder(target.deletingLastPathComponent())
  }

  /// Whether a swap of names failed because the file system (or the C library) cannot swap.
  private static func cannotExchange(_ code: Int32) -> Bool {
    code == EINVAL || code == ENOSYS || code == ENOTSUP || code == EOPNOTSUPP || code == ENOTTY
  }

  func createAtomically(_ data: Data, at url: URL) throws {
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
      protectionClass: unsaved ? SystemCalls.writableAfterFirstUnlock : nil
    ) { fd, path in
      try writeAll(data, to: fd, path: path)
    }
    try place(temporary, at: target)
  }

  func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
    let path = source.path
    // NB: opened and examined as a read is, so a FIFO or a device is refused, not copied, and
    // nothing blocks.
    guard let (fd, info) = try openRegularFile(path) else { return false }
    defer { _ = calls.close(fd) }
    let target = try resolve(destination, for: .write)
    // A second name for the same file: instant whatever its size, reads nothing, and never
    // replaces what has the name already.
    if calls.link(path, target.path) == 0 {
      try flushFolder(target.deletingLastPathComponent())
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
      if let protectionClass {
        // NB: best effort: a class the volume refuses leaves the folder's default.
        _ = calls.setProtectionClass(fd, protectionClass)
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
    try flushFolder(target.deletingLastPathComponent())
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

  /// Creates `folder` and any missing folder above it, each one durably.
  ///
  /// NB: a new folder is an entry in its parent, and like a renamed file it survives a power cut
  /// only once the parent is flushed: without that, a first save into a new folder could be
  /// acknowledged and then lost with the folder (found by the power-loss campaign under the
  /// POSIX model).
  func createFolder(_ folder: URL, mode: mode_t = 0o777) throws {
    if calls.mkdir(folder.path, mode) == 0 {
      try flushFolder(folder.deletingLastPathComponent())
      return
    }
    if errno == EEXIST { return }
    guard errno == ENOENT, folder.pathComponents.count > 1 else {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
    try createFolder(folder.deletingLastPathComponent(), mode: mode)
    if calls.mkdir(folder.path, mode) == 0 {
      try flushFolder(folder.deletingLastPathComponent())
    } else if errno != EEXIST {
      throw FileSystemError(.createFolder, path: folder.path, reason: .init(errno: errno))
    }
  }

  /// Flushes the entries of `folder` (a rename, a new name, a new folder) to stable storage.
  ///
  /// NB: through the same full flush as a file's bytes: on Apple platforms a plain `fsync`
  /// leaves the folder's entry in the drive's cache, where a power loss can undo an
  /// acknowledged save (data-safety rule "An acknowledged save is on disk").
  private func flushFolder(_ folder: URL) throws {
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
