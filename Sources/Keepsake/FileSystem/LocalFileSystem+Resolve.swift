import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension LocalFileSystem {
  /// The file `url` names, with every symbolic link on the way followed, the last one too, even
  /// when what it points at does not exist yet.
  ///
  /// `..` is taken after the links before it, as the system does (`link/../x` is beside the
  /// link's target, not beside the link). When the file does not exist, the deepest folder that
  /// does is resolved and the missing rest added to it, so a dangling link `drafts.json ->
  /// sub/target.json` resolves to `sub/target.json` (which a first save creates, folder and all).
  ///
  /// One `realpath` when the file exists, the common case; a few `lstat`s and `readlink`s more
  /// when it does not.
  ///
  /// - Throws: ``FileSystemError`` with ``FileSystemError/Reason/linkLoop`` when the links never
  ///   reach a file, ``FileSystemError/Reason/nameTooLong(name:length:limit:)`` or
  ///   ``FileSystemError/Reason/pathTooLong(length:limit:)`` for names the system refuses, and
  ///   ``FileSystemError/Reason/nameNotUTF8(name:)`` when a link points at a name that is not
  ///   valid UTF-8. A path that cannot be examined for another reason (a folder this user may not
  ///   search) is returned as written, so the operation on it reports that reason.
  func resolve(_ url: URL) throws -> URL { try resolve(url, for: .read) }

  /// ``resolve(_:)``, with errors naming `operation`: the one that needed the path resolved.
  func resolve(_ url: URL, for operation: FileOperation) throws -> URL {
    let path = url.path
    var followed = 0
    do {
      let resolved = try Self.resolve(Self.lexical(path), followed: &followed)
      if resolved == path { return url }
      // NB: a link to a device, a FIFO or a folder stays the link: the read refuses it by the
      // name the app gave, and its advice ("remove it") must never point at `/dev/zero`.
      var info = stat()
      if stat(resolved, &info) == 0, info.st_mode & S_IFMT != S_IFREG { return url }
      return URL(fileURLWithPath: resolved)
    } catch let error as ResolutionFailure {
      switch error {
      case .unexaminable: return url
      case .failed(let reason): throw FileSystemError(operation, path: path, reason: reason)
      }
    }
  }

  /// ``resolve(_:)`` with the folder's resolution kept in `folders`: one `lstat` of the file's
  /// own name once its folder is known, against a `realpath` that examines every name on the way
  /// (a few times slower, on every key's creation).
  ///
  /// NB: a folder is resolved once per storage context: a link on the way to it that is changed
  /// while the app runs takes effect in the next context (the next launch). The file's own name
  /// is examined every time.
  func resolve(_ url: URL, path given: String, folders: ResolvedFolders) throws -> URL {
    // NB: the path the caller has: `URL.path` is costly on Linux.
    let path = Self.lexical(given)
    let (parent, name) = Self.split(path)
    guard name != "..", name != ".", !name.isEmpty else { return try resolve(url) }
    let folder: String
    if let known = folders[parent] {
      folder = known
    } else {
      // Only a folder that exists is kept: a missing one may yet be made a link.
      guard let real = try? Self.realPath(parent) else { return try resolve(url) }
      folders[parent] = real
      folder = real
    }
    let candidate = folder == "/" ? "/" + name : folder + "/" + name
    // NB: not a folder (missing, or a regular file), so no `stat` for the URL to find out.
    let file = candidate == given ? url : URL(fileURLWithPath: candidate, isDirectory: false)
    var info = stat()
    guard lstat(candidate, &info) == 0 else {
      switch errno {
      case ENOENT: return file
      default: return try resolve(url)
      }
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return file
    case S_IFLNK: return try resolve(URL(fileURLWithPath: candidate))
    // A FIFO, a device or a folder stays as the app named it, as in `resolve(_:)`.
    default: return url
    }
  }

  /// Why a path could not be resolved: a reason to report, or a path to leave as written.
  private enum ResolutionFailure: Error {
    case failed(FileSystemError.Reason)
    case unexaminable
  }

  /// The most links followed before a path counts as a loop, as the system's `SYMLOOP_MAX`.
  private static let maximumLinks = 40

  private static func resolve(_ path: String, followed: inout Int) throws -> String {
    if let real = try realPath(path) { return real }
    // Something on the way is missing: the file, a folder above it, or a link's target.
    let (parent, name) = split(path)
    if name == ".." { return split(try resolve(parent, followed: &followed)).parent }
    var info = stat()
    if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
      followed += 1
      guard followed <= maximumLinks else { throw ResolutionFailure.failed(.linkLoop) }
      let target = try linkTarget(path)
      let next = target.hasPrefix("/") ? target : parent + "/" + target
      return try resolve(lexical(next), followed: &followed)
    }
    let folder = try resolve(parent, followed: &followed)
    return folder == "/" ? "/" + name : folder + "/" + name
  }

  /// `realpath` of `path`, or `nil` when something on the way does not exist.
  fileprivate static func realPath(_ path: String) throws -> String? {
    guard let resolved = realpath(path, nil) else {
      switch errno {
      case ENOENT: return nil
      case ELOOP: throw ResolutionFailure.failed(.linkLoop)
      case ENAMETOOLONG: throw ResolutionFailure.failed(tooLong(path))
      default: throw ResolutionFailure.unexaminable
      }
    }
    defer { free(resolved) }
    guard let text = PathBytes.string(cString: resolved) else {
      throw ResolutionFailure.failed(
        .nameNotUTF8(name: PathBytes.escaped(PathBytes.bytes(cString: resolved))))
    }
    return text
  }

  /// Where the symbolic link at `path` points, as written in the link.
  private static func linkTarget(_ path: String) throws -> String {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = buffer.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
    }
    guard count >= 0 else { throw ResolutionFailure.unexaminable }
    let bytes = buffer[..<count]
    guard let target = PathBytes.string(bytes) else {
      throw ResolutionFailure.failed(.nameNotUTF8(name: PathBytes.escaped(bytes)))
    }
    return target
  }

  /// The reason the system refused `path` as too long: one of its names, or the whole.
  private static func tooLong(_ path: String) -> FileSystemError.Reason {
    FileSystemLimits.excess(of: path)
      ?? .pathTooLong(length: path.utf8.count, limit: FileSystemLimits.maximumPathLength)
  }

  /// `path` without empty and `.` components; `..` stays, for ``resolve(_:followed:)``.
  static func lexical(_ path: String) -> String {
    // NB: the bytes looked at first: Foundation's `contains` of a string is costly on Linux,
    // and every file key's creation would call it twice.
    if FolderPath.isStandard(path) { return path }
    guard path.contains("//") || path.contains("/.") || path.hasSuffix("/") else { return path }
    let components = path.split(separator: "/").filter { $0 != "." }
    return "/" + components.joined(separator: "/")
  }

  /// The folder and the name of an absolute path.
  fileprivate static func split(_ path: String) -> (parent: String, name: String) {
    // NB: found as bytes: a search of the characters finds grapheme boundaries, a cost in every
    // file key's creation. A `/` byte is always a whole character.
    PathScan.split(path) ?? ("/", path)
  }
}

extension LocalFileSystem {
  /// Asks the volume (Apple) or the folder (Linux's casefold folders) whether names ignore case,
  /// from the nearest folder that exists; once per folder and context.
  func foldsCase(inFolder path: String, folders: ResolvedFolders) -> Bool {
    folders.foldsCase(inFolder: path) {
      var folder = path
      while true {
        if let answer = Self.foldsCase(existingFolder: folder) { return answer }
        let parent = (folder as NSString).deletingLastPathComponent
        guard parent != folder, !parent.isEmpty else { return false }
        folder = parent
      }
    }
  }

  /// Whether names in the folder at `path` ignore case, or `nil` when it does not exist.
  ///
  /// NB: on Apple platforms case-sensitivity is the volume's (`_PC_CASE_SENSITIVE`, 0 on APFS's
  /// default); on Linux it is a folder's `FS_CASEFOLD_FL` flag (ext4 and f2fs), inherited by the
  /// folders made in it. Other case-insensitive file systems on Linux (FAT, SMB) answer as
  /// case-sensitive, and two spellings there stay two keys.
  static func foldsCase(existingFolder path: String) -> Bool? {
    #if canImport(Darwin)
      errno = 0
      let answer = pathconf(path, _PC_CASE_SENSITIVE)
      if answer == 0 { return true }
      if answer == 1 { return false }
      return errno == ENOENT || errno == ENOTDIR ? nil : false
    #elseif os(Linux)
      let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
      guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? nil : false }
      defer { close(fd) }
      var flags: Int = 0
      // NB: `FS_IOC_GETFLAGS` and `FS_CASEFOLD_FL` from <linux/fs.h>, which Glibc's module
      // does not carry: `_IOR('f', 1, long)` on 64-bit Linux.
      let getFlags: UInt = 0x8008_6601
      let caseFolded = 0x4000_0000
      guard ioctl(fd, getFlags, &flags) == 0 else { return false }
      return flags & caseFolded != 0
    #else
      return false
    #endif
  }
}
