import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One system call of the real disk's writer, with its arguments.
///
/// Each has the contract of the call it is named after: ``SystemCalls/perform`` returns what the
/// call returns (as an `Int`) and leaves `errno` set as the call does.
package enum SystemCall {
  /// `open(path, flags, mode)`: a descriptor, or -1.
  case open(path: String, flags: Int32, mode: mode_t)
  /// `pwrite(fd, bytes, count, offset)`: the number of bytes written, or -1.
  case write(fd: Int32, bytes: UnsafeRawBufferPointer, offset: Int)
  /// Flushes a file or a folder to stable storage: `F_FULLFSYNC` where the platform has it,
  /// else `fsync`; the one flush of the write protocol, as a folder's entries (a rename) need
  /// the drive's cache written through as much as a file's bytes do.
  case fullFlush(fd: Int32)
  /// `close(fd)`.
  case close(fd: Int32)
  /// `rename(from, to)`.
  case rename(from: String, to: String)
  /// Swaps the files named `first` and `second` in one atomic step
  /// (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on Apple platforms): 0,
  /// or -1 with `errno` set, `EINVAL`, `ENOSYS` or `ENOTSUP` where the file system cannot.
  case exchange(first: String, second: String)
  /// `link(from, to)`, following a link at `from`: gives the file at `from` the new name `to`,
  /// failing with `EEXIST` rather than replace anything there.
  case link(from: String, to: String)
  /// `unlink(path)`.
  case unlink(path: String)
  /// `mkdir(path, mode)`.
  case mkdir(path: String, mode: mode_t)
  /// `fchmod(fd, mode)`.
  case fchmod(fd: Int32, mode: mode_t)
  /// `flock(fd, operation)`.
  case flock(fd: Int32, operation: Int32)
  /// `fchown(fd, owner, group)`.
  case fchown(fd: Int32, owner: uid_t, group: gid_t)
  /// `listxattr(path, buffer, size)`, links followed: the names of the file's extended
  /// attributes, each ended by a 0 byte; the bytes written (or, for an empty buffer, needed), or
  /// -1.
  case listAttributes(path: String, buffer: UnsafeMutableRawBufferPointer)
  /// `getxattr(path, name, buffer, size)`, links followed: the value's size, or -1.
  case getAttribute(path: String, name: String, buffer: UnsafeMutableRawBufferPointer)
  /// `fsetxattr(fd, name, bytes, size)`.
  case setAttribute(fd: Int32, name: String, bytes: UnsafeRawBufferPointer)
  /// The Data Protection class of the file at `path`, links followed: a positive number, 0 for
  /// none, or -1 with `errno` set. Asked only where ``SystemCalls/hasProtectionClasses``.
  case protectionClass(path: String)
  /// Gives the open file `fd` a Data Protection class: 0, or -1 with `errno` set.
  case setProtectionClass(fd: Int32, protectionClass: Int32)
}

/// The system calls through which ``LocalFileSystem`` changes what is on disk, as one seam.
///
/// Every call that creates, writes, flushes, renames or removes a file or a folder, takes a
/// file's lock, or reads or sets the metadata a save carries over (see ``FileMetadata``), goes
/// through ``perform``, so a test can run the real writer with a recorder that logs each call in
/// order and forwards it (`SystemCallRecorder`, in the stress tool's library, which the
/// power-loss campaign replays), and prove the protocol of data-safety rule "Writes are atomic
/// and durable" (see the Data safety article) step by step, or fail any call. Reads of bytes,
/// `stat` and directory listings change nothing and call the system directly.
///
/// NB: a final class, so a ``LocalFileSystem`` holds one reference (it still fits an
/// existential's inline buffer) and copying it costs a retain. The real calls are ``live``: one
/// indirect call and a switch per system call, nothing allocated, against the microseconds of
/// the call.
package final class SystemCalls: Sendable {
  /// Makes `call`, returning what it returns, with `errno` set as it sets it.
  package let perform: @Sendable (SystemCall) -> Int
  /// Whether files have a Data Protection class (iOS, tvOS, watchOS and visionOS), so a save
  /// asks the class of the file it replaces; `false` on Linux and macOS, which ask nothing.
  let hasProtectionClasses: Bool
  /// The time asked of the system while a lock is held (see ``BackgroundTime``).
  let backgroundTime: BackgroundTime

  /// Calls made by `perform`, as on this platform: with Data Protection classes where files
  /// have them.
  package convenience init(perform: @escaping @Sendable (SystemCall) -> Int) {
    self.init(hasProtectionClasses: protectionClassesAvailable, perform: perform)
  }

  init(
    hasProtectionClasses: Bool, backgroundTime: BackgroundTime = .live,
    perform: @escaping @Sendable (SystemCall) -> Int
  ) {
    self.perform = perform
    self.hasProtectionClasses = hasProtectionClasses
    self.backgroundTime = backgroundTime
  }

  /// The real system calls.
  package static let live = SystemCalls(perform: systemCall)

  /// These calls, with `time` asked of the system while a lock is held.
  func asking(_ time: BackgroundTime) -> SystemCalls {
    SystemCalls(
      hasProtectionClasses: hasProtectionClasses, backgroundTime: time, perform: perform)
  }

  /// Data Protection's class C (`NSFileProtectionCompleteUntilFirstUserAuthentication`): the
  /// file can be read and written once the device was unlocked after it started.
  static let writableAfterFirstUnlock: Int32 = 3
}

// The calls by name, as the writer spells them: each makes its `SystemCall` through `perform`.
extension SystemCalls {
  func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    Int32(truncatingIfNeeded: perform(.open(path: path, flags: flags, mode: mode)))
  }
  func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    perform(.write(fd: fd, bytes: bytes, offset: offset))
  }
  func fullFlush(_ fd: Int32) -> Int32 { Int32(truncatingIfNeeded: perform(.fullFlush(fd: fd))) }
  func close(_ fd: Int32) -> Int32 { Int32(truncatingIfNeeded: perform(.close(fd: fd))) }
  func rename(_ from: String, _ to: String) -> Int32 {
    Int32(truncatingIfNeeded: perform(.rename(from: from, to: to)))
  }
  func exchange(_ first: String, _ second: String) -> Int32 {
    Int32(truncatingIfNeeded: perform(.exchange(first: first, second: second)))
  }
  func link(_ from: String, _ to: String) -> Int32 {
    Int32(truncatingIfNeeded: perform(.link(from: from, to: to)))
  }
  func unlink(_ path: String) -> Int32 { Int32(truncatingIfNeeded: perform(.unlink(path: path))) }
  func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
    Int32(truncatingIfNeeded: perform(.mkdir(path: path, mode: mode)))
  }
  func fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 {
    Int32(truncatingIfNeeded: perform(.fchmod(fd: fd, mode: mode)))
  }
  func flock(_ fd: Int32, _ operation: Int32) -> Int32 {
    Int32(truncatingIfNeeded: perform(.flock(fd: fd, operation: operation)))
  }
  func fchown(_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32 {
    Int32(truncatingIfNeeded: perform(.fchown(fd: fd, owner: owner, group: group)))
  }
  func listAttributes(_ path: String, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    perform(.listAttributes(path: path, buffer: buffer))
  }
  func getAttribute(_ path: String, _ name: String, _ buffer: UnsafeMutableRawBufferPointer)
    -> Int
  {
    perform(.getAttribute(path: path, name: name, buffer: buffer))
  }
  func setAttribute(_ fd: Int32, _ name: String, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    Int32(truncatingIfNeeded: perform(.setAttribute(fd: fd, name: name, bytes: bytes)))
  }
  /// The class of the file at `path`, or `nil` where files have none (nothing is asked).
  func protectionClass(of path: String) -> Int32? {
    guard hasProtectionClasses else { return nil }
    return Int32(truncatingIfNeeded: perform(.protectionClass(path: path)))
  }
  /// Gives `fd` a class where files have one: 0, or -1 with `errno` set.
  func setProtectionClass(_ fd: Int32, _ protectionClass: Int32) -> Int32 {
    guard hasProtectionClasses else { return 0 }
    return Int32(
      truncatingIfNeeded: perform(.setProtectionClass(fd: fd, protectionClass: protectionClass)))
  }
}

/// Makes `call` with the real system call.
private func systemCall(_ call: SystemCall) -> Int {
  switch call {
  case .open(let path, let flags, let mode): Int(open(path, flags, mode))
  case .write(let fd, let bytes, let offset):
    bytes.baseAddress.map { pwrite(fd, $0, bytes.count, off_t(offset)) } ?? 0
  case .fullFlush(let fd): Int(systemFullFlush(fd))
  case .close(let fd): Int(close(fd))
  case .rename(let from, let to): Int(rename(from, to))
  case .exchange(let first, let second): Int(systemExchange(first, second))
  case .link(let from, let to): Int(linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW))
  case .unlink(let path): Int(unlink(path))
  case .mkdir(let path, let mode): Int(mkdir(path, mode))
  case .fchmod(let fd, let mode): Int(fchmod(fd, mode))
  case .flock(let fd, let operation): Int(flock(fd, operation))
  case .fchown(let fd, let owner, let group): Int(fchown(fd, owner, group))
  case .listAttributes(let path, let buffer): systemListAttributes(path, buffer)
  case .getAttribute(let path, let name, let buffer): systemGetAttribute(path, name, buffer)
  case .setAttribute(let fd, let name, let bytes): Int(systemSetAttribute(fd, name, bytes))
  case .protectionClass(let path): Int(systemProtectionClass(path))
  case .setProtectionClass(let fd, let protectionClass):
    Int(systemSetProtectionClass(fd, protectionClass))
  }
}

// NB: on Apple platforms `fsync` only hands the data to the drive, whose cache may still lose
// it on power loss; `F_FULLFSYNC` asks the drive to write it through, for a file's bytes and a
// folder's entries alike. File systems that do not support it fail the call, and `fsync` is
// then the best available.
private func systemFullFlush(_ fd: Int32) -> Int32 {
  #if canImport(Darwin)
    if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
  #endif
  return fsync(fd)
}

private func systemExchange(_ first: String, _ second: String) -> Int32 {
  #if canImport(Darwin)
    return renamex_np(first, second, UInt32(RENAME_SWAP))
  #elseif os(Linux)
    guard let call = LinuxRenameCalls.renameat2 else {
      errno = ENOSYS
      return -1
    }
    return call(AT_FDCWD, first, AT_FDCWD, second, LinuxRenameCalls.exchange)
  #else
    errno = ENOSYS
    return -1
  #endif
}

#if os(Linux)
  /// `renameat2`, found by name.
  ///
  /// NB: the Swift `Glibc` module leaves it out (it needs `_GNU_SOURCE`); glibc has had it
  /// since 2.28 and musl since 1.2.5. One that is missing reads as a file system that cannot
  /// swap names, and the save compares the file just before its rename instead.
  private enum LinuxRenameCalls {
    typealias Rename =
      @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    /// `RENAME_EXCHANGE` from `<linux/fs.h>`.
    static let exchange: UInt32 = 1 << 1
    static let renameat2: Rename? = {
      guard let address = dlsym(nil, "renameat2") else { return nil }
      return unsafeBitCast(address, to: Rename.self)
    }()
  }
#endif

// NB: Apple's extended-attribute calls take a position (for resource forks) and options (0:
// links followed, compressed files' own attributes hidden); the rest is the same.
private func systemListAttributes(
  _ path: String, _ buffer: UnsafeMutableRawBufferPointer
) -> Int {
  let names = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
  #if canImport(Darwin)
    return listxattr(path, names, buffer.count, 0)
  #else
    guard let call = LinuxAttributeCalls.list else { return unsupported() }
    return call(path, names, buffer.count)
  #endif
}
private func systemGetAttribute(
  _ path: String, _ name: String, _ buffer: UnsafeMutableRawBufferPointer
) -> Int {
  #if canImport(Darwin)
    return getxattr(path, name, buffer.baseAddress, buffer.count, 0, 0)
  #else
    guard let call = LinuxAttributeCalls.get else { return unsupported() }
    return call(path, name, buffer.baseAddress, buffer.count)
  #endif
}
private func systemSetAttribute(
  _ fd: Int32, _ name: String, _ bytes: UnsafeRawBufferPointer
) -> Int32 {
  #if canImport(Darwin)
    return fsetxattr(fd, name, bytes.baseAddress, bytes.count, 0, 0)
  #else
    guard let call = LinuxAttributeCalls.set else { return Int32(unsupported()) }
    return call(fd, name, bytes.baseAddress, bytes.count, 0)
  #endif
}

#if !canImport(Darwin)
  /// The C library's extended-attribute calls, found by name.
  ///
  /// NB: the Swift `Glibc` module leaves out `<sys/xattr.h>`; the calls are in every C library
  /// Linux has (glibc, musl), found once through `dlsym`. One that is missing reads as a file
  /// system without attributes.
  private enum LinuxAttributeCalls {
    typealias List =
      @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int
    typealias Get =
      @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int
      ) -> Int
    typealias Set =
      @convention(c) (
        Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32
      ) -> Int32

    static let list: List? = symbol("listxattr")
    static let get: Get? = symbol("getxattr")
    static let set: Set? = symbol("fsetxattr")

    private static func symbol<T>(_ name: String) -> T? {
      // A nil handle is RTLD_DEFAULT: the symbol wherever the process has it.
      guard let address = dlsym(nil, name) else { return nil }
      return unsafeBitCast(address, to: T.self)
    }
  }

  /// Fails as a file system without extended attributes does.
  private func unsupported() -> Int {
    errno = ENOTSUP
    return -1
  }
#endif

/// Whether files have a Data Protection class here.
///
/// NB: classes are per file on iOS, tvOS, watchOS and visionOS, whose files are protected by
/// default, and an app may choose a stricter class for one; an atomic replace would give the new
/// file the folder's default. A Mac's files take the volume's protection (FileVault).
private let protectionClassesAvailable: Bool = {
  #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    true
  #else
    false
  #endif
}()

private func systemProtectionClass(_ path: String) -> Int32 {
  #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    // NB: `getattrlist` reads it by path in one call, also while the device is locked (a
    // descriptor for `F_GETPROTECTIONCLASS` would need the file opened, and its key).
    var request = attrlist()
    request.bitmapcount = u_short(ATTR_BIT_MAP_COUNT)
    request.commonattr = attrgroup_t(ATTR_CMN_DATA_PROTECT_FLAGS)
    // The reply: its length in bytes, then the class.
    var reply: (length: UInt32, protectionClass: UInt32) = (0, 0)
    let result = withUnsafeMutableBytes(of: &reply) { buffer in
      getattrlist(path, &request, buffer.baseAddress, buffer.count, 0)
    }
    return result == 0 ? Int32(bitPattern: reply.protectionClass) : -1
  #else
    errno = ENOTSUP
    return -1
  #endif
}

private func systemSetProtectionClass(_ fd: Int32, _ protectionClass: Int32) -> Int32 {
  #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    return fcntl(fd, F_SETPROTECTIONCLASS, protectionClass)
  #else
    errno = ENOTSUP
    return -1
  #endif
}
