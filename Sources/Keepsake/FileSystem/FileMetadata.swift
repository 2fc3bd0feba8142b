import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Carries a file's metadata over to the temporary file that replaces it, before the rename.
///
/// An atomic replace gives the name a new file, and a new file has none of the old one's
/// metadata: its extended attributes (on Apple platforms, Finder tags, the backup exclusion
/// `com.apple.metadata:com_apple_backup_excludeItem`, the quarantine), its Data Protection class
/// (iOS, tvOS, watchOS, visionOS), its owner and group and its permissions would all fall back to
/// the folder's and the process's defaults on every save. So the writer gives the temporary file
/// the target's, in this order:
/// 1. the **Data Protection class**, before any byte is written, where files have one (see
///    ``SystemCalls/hasProtectionClasses``);
/// 2. the **owner and group**, where they differ from this process's user and group and the
///    system permits it (as root, or a group this user belongs to);
/// 3. the **permissions**, after the owner (a change of owner clears the set-user-ID and
///    set-group-ID bits);
/// 4. the **extended attributes**, except those the kernel keeps for itself (see
///    ``carriesOver(_:)``), each of at most ``maximumAttributeSize`` bytes.
///
/// What a failure means: the data matters more than its metadata, so a save never fails because
/// an attribute, the owner or the group could not be carried over; the new file then has the
/// default. Two exceptions keep a protection the user or the app chose from being weakened
/// silently: a Data Protection class the new file cannot take fails the save (the file is left
/// as it was, and the change stays pending), and when the owner cannot be carried over, the
/// set-user-ID and set-group-ID bits are not either (a file would otherwise run as this user).
///
/// Cost: a file without extended attributes costs one `listxattr`, and on iOS, tvOS, watchOS and
/// visionOS one `getattrlist`; the owner is compared without a system call.
enum FileMetadata {
  /// The largest extended attribute carried over, in bytes: Linux's own limit for a value.
  ///
  /// NB: the attributes a person or the system sets on a document (tags, the backup exclusion,
  /// the quarantine, where it came from) are a few hundred bytes; a larger one is a resource
  /// fork, which a file Keepsake writes has no use for, and reading it on every save would cost
  /// more than the save.
  static let maximumAttributeSize = 64 * 1024

  /// The bytes read for an attribute's names or value before its size is asked: most fit.
  private static let firstReadSize = 4096

  /// Gives the open temporary file `fd` the metadata of the file at `path`, whose `stat` is
  /// `info`.
  ///
  /// - Throws: ``FileSystemError`` (naming `path`) only when the file has a Data Protection
  ///   class that the temporary file cannot take.
  static func carryOver(
    from path: String, info: stat, to fd: Int32, calls: SystemCalls,
    maximumAttributeSize: Int = maximumAttributeSize
  ) throws {
    // NB: 0 is "no class"; a class that cannot be read is left to the folder's default.
    if let protectionClass = calls.protectionClass(of: path), protectionClass > 0,
      calls.setProtectionClass(fd, protectionClass) != 0
    {
      throw FileSystemError(.write, path: path, reason: .init(errno: errno))
    }
    var mode = info.st_mode & 0o7777
    if !carryOverOwner(info, to: fd, calls: calls) {
      mode &= ~0o6000  // set-user-ID and set-group-ID
    }
    _ = calls.fchmod(fd, mode)
    carryOverAttributes(from: path, to: fd, calls: calls, maximumSize: maximumAttributeSize)
  }

  /// Gives `fd` the owner and group of `info` where they differ from this process's; `false`
  /// when the system refused the owner.
  ///
  /// NB: a new file belongs to this process's user, and (on Linux, unless the folder is
  /// set-group-ID) to its group: comparing with those costs no system call on the common save,
  /// a file of this user. On Apple platforms a new file takes its folder's group: a file of this
  /// user's group in a folder of another group takes the folder's.
  private static func carryOverOwner(_ info: stat, to fd: Int32, calls: SystemCalls) -> Bool {
    let owner = info.st_uid
    let group = info.st_gid
    let ownerDiffers = owner != geteuid()
    guard ownerDiffers || group != getegid() else { return true }
    if calls.fchown(fd, owner, group) == 0 { return true }
    // Not root: the group alone, which a user may give a file of theirs if they belong to it.
    guard ownerDiffers else { return true }
    if group != getegid() { _ = calls.fchown(fd, uid_t.max, group) }
    return false
  }

  /// Whether an extended attribute called `name` is carried over to the file that replaces its
  /// file.
  ///
  /// Left out: the namespaces the kernel keeps for itself or for privileged processes on Linux
  /// (`security.` labels, which the new file gets from the system's policy; `trusted.`; the
  /// `system.` ACLs, which the permissions stand for), and Apple's protected
  /// `com.apple.system.` attributes, which no app can set. Everything else, the user's and the
  /// system's document attributes alike, is carried over.
  static func carriesOver(_ name: String) -> Bool {
    !(name.hasPrefix("security.") || name.hasPrefix("trusted.") || name.hasPrefix("system.")
      || name.hasPrefix("com.apple.system."))
  }

  /// Copies the extended attributes of the file at `path` that ``carriesOver(_:)`` accepts, of
  /// at most `maximumSize` bytes each, to `fd`; what cannot be read or set is skipped.
  private static func carryOverAttributes(
    from path: String, to fd: Int32, calls: SystemCalls, maximumSize: Int
  ) {
    guard let list = read({ calls.listAttributes(path, $0) }, limit: Int.max), !list.isEmpty else {
      // No attributes, or a file system without them (ENOTSUP): nothing to carry over.
      return
    }
    for name in names(in: list) where carriesOver(name) {
      guard let value = read({ calls.getAttribute(path, name, $0) }, limit: maximumSize) else {
        // Removed since it was listed, grown past the limit, or refused: skipped.
        continue
      }
      // NB: a refusal (a file system without such attributes, a name only the system may set,
      // a value that does not fit) leaves the attribute out, never the save.
      _ = value.withUnsafeBytes { calls.setAttribute(fd, name, $0) }
    }
  }

  /// The names in a `listxattr` reply: each ends with a 0 byte.
  static func names(in list: [UInt8]) -> [String] {
    list.split(separator: 0).compactMap { String(bytes: $0, encoding: .utf8) }
  }

  /// The bytes `call` puts in a buffer (a list of names, a value), asking for the size when a
  /// first small buffer is too small; `nil` when the call fails or the bytes are more than
  /// `limit`.
  ///
  /// NB: a value may grow between asking its size and reading it (`ERANGE`); it is asked again,
  /// a few times, never forever.
  private static func read(
    _ call: (UnsafeMutableRawBufferPointer) -> Int, limit: Int
  ) -> [UInt8]? {
    // NB: the first read goes to the stack: a file without attributes, the common save, costs
    // one call and no allocation.
    let first = withUnsafeTemporaryAllocation(
      byteCount: min(firstReadSize, limit), alignment: 1
    ) { buffer -> (bytes: [UInt8]?, error: Int32) in
      let count = call(buffer)
      if count < 0 { return (nil, errno) }
      return (count == 0 ? [] : Array(buffer.prefix(count)), 0)
    }
    if let bytes = first.bytes { return bytes }
    guard first.error == ERANGE else { return nil }
    for _ in 0..<3 {
      let needed = call(UnsafeMutableRawBufferPointer(start: nil, count: 0))
      guard needed >= 0, needed <= limit else { return nil }
      var bytes = [UInt8](repeating: 0, count: needed)
      let count = bytes.withUnsafeMutableBytes { call($0) }
      if count >= 0 {
        bytes.removeSubrange(min(count, bytes.count)...)
        return bytes
      }
      guard errno == ERANGE else { return nil }
    }
    return nil
  }
}
