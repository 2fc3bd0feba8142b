import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The system calls through which ``LocalFileSystem`` changes what is on disk, as one seam.
///
/// Every call that creates, writes, flushes, renames or removes a file or a folder, takes a
/// file's lock, or reads or sets the metadata a save carries over (see ``FileMetadata``), goes
/// through here, so a test can run the real writer with a recorder that logs each
/// call in order and forwards it (`SystemCallRecorder`, in the stress tool's library, which the
/// power-loss campaign replays), and prove the protocol of
/// data-safety rule "Writes are atomic and durable" (see the Data safety article) step by step.
/// Reads of bytes, `stat` and directory listings change nothing and call the system directly;
/// a file's metadata is read through here so a test can count what a save costs and fail it.
///
/// Each closure has the contract of the call it is named after: it returns what the call returns
/// and leaves `errno` set as the call does.
///
/// NB: a final class, so a ``LocalFileSystem`` holds one reference (it still fits an
/// existential's inline buffer) and copying it costs a retain. The real calls are ``live``: one
/// indirect call per system call, nothing allocated, against the microseconds of the call.
package final class SystemCalls: Sendable {
  /// `open(path, flags, mode)`: a descriptor, or -1.
  package let open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
  /// `pwrite(fd, bytes, count, offset)`: the number of bytes written, or -1.
  package let write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int
  /// Flushes a file or a folder to stable storage.
  ///
  /// `F_FULLFSYNC` where the platform has it, else `fsync`: the one flush of the write protocol,
  /// as a folder's entries (a rename) need the drive's cache written through as much as a
  /// file's bytes do.
  package let fullFlush: @Sendable (_ fd: Int32) -> Int32
  /// `close(fd)`.
  package let close: @Sendable (_ fd: Int32) -> Int32
  /// `rename(from, to)`.
  package let rename: @Sendable (_ from: String, _ to: String) -> Int32
  /// Swaps the files named `first` and `second` in one atomic step
  /// (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on Apple platforms): 0,
  /// or -1 with `errno` set, `EINVAL`, `ENOSYS` or `ENOTSUP` where the file system cannot.
  package let exchange: @Sendable (_ first: String, _ second: String) -> Int32
  /// `link(from, to)`, following a link at `from`: gives the file at `from` the new name `to`,
  /// failing with `EEXIST` rather than replace anything there.
  package let link: @Sendable (_ from: String, _ to: String) -> Int32
  /// `unlink(path)`.
  package let unlink: @Sendable (_ path: String) -> Int32
  /// `mkdir(path, mode)`.
  package let mkdir: @Sendable (_ path: String, _ mode: mode_t) -> Int32
  /// `fchmod(fd, mode)`.
  package let fchmod: @Sendable (_ fd: Int32, _ mode: mode_t) -> Int32
  /// `flock(fd, operation)`.
  package let flock: @Sendable (_ fd: Int32, _ operation: Int32) -> Int32
  /// `fchown(fd, owner, group)`.
  package let fchown: @Sendable (_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32
  /// `listxattr(path, buffer, size)`, links followed: the names of the file's extended
  /// attributes, each ended by a 0 byte; the bytes written (or, for an empty buffer, needed), or
  /// -1.
  package let listAttributes:
    @Sendable (_ path: String, _ buffer: UnsafeMutableRawBufferPointer) -> Int
  /// `getxattr(path, name, buffer, size)`, links followed: the value's size, or -1.
  package let getAttribute:
    @Sendable (_ path: String, _ name: String, _ buffer: UnsafeMutableRawBufferPointer) -> Int
  /// `fsetxattr(fd, name, bytes, size)`.
  package let setAttribute:
    @Sendable (_ fd: Int32, _ name: String, _ bytes: UnsafeRawBufferPointer) -> Int32
  /// How a file's Data Protection class is read and given, where files have one: `nil` on
  /// Linux and macOS, so a save asks nothing there.
  package let protectionClasses: ProtectionClassCalls?
  /// The time asked of the system while a lock is held (see ``BackgroundTime``).
  let backgroundTime: BackgroundTime

  /// A set of calls; ``live`` is the real one.
  ///
  /// The metadata calls default to the real ones.
  package init(
    open: @escaping @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32,
    write: @escaping @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int,
    fullFlush: @escaping @Sendable (_ fd: Int32) -> Int32,
    close: @escaping @Sendable (_ fd: Int32) -> Int32,
    rename: @escaping @Sendable (_ from: String, _ to: String) -> Int32,
    link: @escaping @Sendable (_ from: String, _ to: String) -> Int32,
    unlink: @escaping @Sendable (_ path: String) -> Int32,
    mkdir: @escaping @Sendable (_ path: String, _ mode: mode_t) -> Int32,
    fchmod: @escaping @Sendable (_ fd: Int32, _ mode: mode_t) -> Int32,
    flock: @escaping @Sendable (_ fd: Int32, _ operation: Int32) -> Int32,
    fchown: @escaping @Sendable (_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32 =
      systemFchown,
    exchange: @escaping @Sendable (_ first: String, _ second: String) -> Int32 = systemExchange,
    listAttributes:
      @escaping @Sendable (_ path: String, _ buffer: UnsafeMutableRawBufferPointer) -> Int =
      systemListAttributes,
    getAttribute:
      @escaping @Sendable (
        _ path: String, _ name: String, _ buffer: UnsafeMutableRawBufferPointer
      ) -> Int = systemGetAttribute,
    setAttribute:
      @escaping @Sendable (_ fd: Int32, _ name: String, _ bytes: UnsafeRawBufferPointer) -> Int32 =
      systemSetAttribute,
    protectionClasses: ProtectionClassCalls? = .live,
    backgroundTime: BackgroundTime = .live
  ) {
    self.backgroundTime = backgroundTime
    self.open = open
    self.write = write
    self.fullFlush = fullFlush
    self.close = close
    self.rename = rename
    self.link = link
    self.unlink = unlink
    self.mkdir = mkdir
    self.fchmod = fchmod
    self.flock = flock
    self.fchown = fchown
    self.exchange = exchange
    self.listAttributes = listAttributes
    self.getAttribute = getAttribute
    self.setAttribute = setAttribute
    self.protectionClasses = protectionClasses
  }

  /// The real system calls.
  package static let live = SystemCalls(
    open: { path, flags, mode in systemOpen(path, flags, mode) },
    write: { fd, bytes, offset in
      guard let base = bytes.baseAddress else { return 0 }
      return pwrite(fd, base, bytes.count, off_t(offset))
    },
    fullFlush: { fd in systemFullFlush(fd) },
    close: { fd in systemClose(fd) },
    rename: { from, to in systemRename(from, to) },
    link: { from, to in systemLink(from, to) },
    unlink: { path in systemUnlink(path) },
    mkdir: { path, mode in systemMkdir(path, mode) },
    fchmod: { fd, mode in systemFchmod(fd, mode) },
    flock: { fd, operation in systemFlock(fd, operation) })
}

// NB: the closures above are named like the calls they wrap; these names reach the C functions
// from inside them without the closures' own names shadowing them.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
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
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemLink(_ from: String, _ to: String) -> Int32 {
  linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW)
}
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemMkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func systemFchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
private func systemFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

// The real calls of a file's metadata: package-wide, so the initializer's default arguments can
// name them.
//
// NB: Apple's extended-attribute calls take a position (for resource forks) and options (0:
// links followed, compressed files' own attributes hidden); the rest is the same.
func systemFchown(_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32 {
  fchown(fd, owner, group)
}
func systemExchange(_ first: String, _ second: String) -> Int32 {
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

func systemListAttributes(
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
func systemGetAttribute(
  _ path: String, _ name: String, _ buffer: UnsafeMutableRawBufferPointer
) -> Int {
  #if canImport(Darwin)
    return getxattr(path, name, buffer.baseAddress, buffer.count, 0, 0)
  #else
    guard let call = LinuxAttributeCalls.get else { return unsupported() }
    return call(path, name, buffer.baseAddress, buffer.count)
  #endif
}
func systemSetAttribute(
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

/// The calls of a file's Data Protection class (see ``SystemCalls/protectionClasses``).
package struct ProtectionClassCalls: Sendable {
  /// The class of the file at `path`, links followed: a positive number, 0 for none, or -1
  /// with `errno` set.
  package var get: @Sendable (_ path: String) -> Int32
  /// Gives the open file `fd` a class: 0, or -1 with `errno` set.
  package var set: @Sendable (_ fd: Int32, _ protectionClass: Int32) -> Int32

  /// Calls with these bodies.
  package init(
    get: @escaping @Sendable (_ path: String) -> Int32,
    set: @escaping @Sendable (_ fd: Int32, _ protectionClass: Int32) -> Int32
  ) {
    self.get = get
    self.set = set
  }

  /// Data Protection's class C (`NSFileProtectionCompleteUntilFirstUserAuthentication`): the
  /// file can be read and written once the device was unlocked after it started.
  static let writableAfterFirstUnlock: Int32 = 3

  /// The real calls where files have a class, else `nil`.
  ///
  /// NB: classes are per file on iOS, tvOS, watchOS and visionOS, whose files are protected by
  /// default, and an app may choose a stricter class for one; an atomic replace would give the
  /// new file the folder's default. A Mac's files take the volume's protection (FileVault).
  static var live: ProtectionClassCalls? {
    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
      ProtectionClassCalls(
        get: { path in
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
        },
        set: { fd, protectionClass in fcntl(fd, F_SETPROTECTIONCLASS, protectionClass) })
    #else
      nil
    #endif
  }
}

extension SystemCalls {
  /// These calls, with `time` asked of the system while a lock is held.
  func asking(_ time: BackgroundTime) -> SystemCalls {
    SystemCalls(
      open: open, write: write, fullFlush: fullFlush, close: close, rename: rename, link: link,
      unlink: unlink, mkdir: mkdir, fchmod: fchmod, flock: flock, fchown: fchown,
      exchange: exchange, listAttributes: listAttributes, getAttribute: getAttribute,
      setAttribute: setAttribute,
      protectionClasses: protectionClasses, backgroundTime: time)
  }
}
