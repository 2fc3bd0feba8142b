import Foundation
import KeepsakeStress
import KeepsakeTesting
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file's metadata survives a save (see `FileMetadata`).
///
/// An atomic replace makes a new file, which gets the old one's extended attributes, owner, permissions and Data Protection class
/// before it is renamed over it. Run on the real disk with Linux's `user.` attributes, which
/// take the same path as Apple's tags, backup exclusion and quarantine.
@Suite("A file's metadata across saves")
struct FileMetadataTests {
  /// Sets the extended attribute `name` of the file at `url`.
  static func setAttribute(_ name: String, _ value: Data, on url: URL) throws {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    try #require(fd >= 0)
    defer { close(fd) }
    let result = value.withUnsafeBytes { SystemCalls.live.setAttribute(fd, name, $0) }
    try #require(result == 0, "setting \(name): \(String(cString: strerror(errno)))")
  }

  /// The value of the extended attribute `name` of the file at `url`, or `nil`.
  static func attribute(_ name: String, of url: URL) -> Data? {
    var buffer = [UInt8](repeating: 0, count: 1 << 17)
    let count = buffer.withUnsafeMutableBytes {
      SystemCalls.live.getAttribute(url.path, name, $0)
    }
    return count < 0 ? nil : Data(buffer[..<count])
  }

  /// The metadata calls a save made, as the recorder describes them, paths relative.
  static func metadataCalls(_ records: [SystemCallRecorder.Record], in folder: URL) -> [String] {
    let root = folder.resolvingSymlinksInPath().path + "/"
    return records.filter { record in
      switch record.call {
      case .listAttributes, .getAttribute, .setAttribute, .fchown, .protectionClass,
        .setProtectionClass:
        true
      default: false
      }
    }.map { record in
      record.description.replacingOccurrences(of: root, with: "")
        .replacingOccurrences(
          of: #"\.(\w+\.json)\.keepsake-tmp-[0-9]+-[0-9]+"#, with: "<tmp of $1>",
          options: .regularExpression)
    }
  }

  @Test("A save keeps the file's extended attributes")
  func attributesSurvive() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    try Self.setAttribute("user.tag", Data("Red\n6".utf8), on: url)
    try Self.setAttribute("user.where-from", Data(repeating: 7, count: 3000), on: url)
    try Self.setAttribute("user.empty", Data(), on: url)

    try LocalFileSystem().writeAtomically(Data("new".utf8), to: url)

    #expect(try Data(contentsOf: url) == Data("new".utf8))
    #expect(Self.attribute("user.tag", of: url) == Data("Red\n6".utf8))
    #expect(Self.attribute("user.where-from", of: url) == Data(repeating: 7, count: 3000))
    #expect(Self.attribute("user.empty", of: url) == Data())
  }

  @Test("A file without extended attributes costs one listxattr a save, and nothing else")
  func costWithoutAttributes() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    let recorder = SystemCallRecorder()
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(Self.metadataCalls(recorder.records, in: folder.url) == ["listxattr drafts.json"])
  }

  @Test("A new file asks for no metadata: there is nothing to carry over")
  func newFileAsksNothing() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    let recorder = SystemCallRecorder()
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(Self.metadataCalls(recorder.records, in: folder.url).isEmpty)
  }

  @Test("Each attribute is read once and set on the temporary file before its bytes are flushed")
  func attributeCalls() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    try Self.setAttribute("user.tag", Data("Red".utf8), on: url)
    let recorder = SystemCallRecorder()
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(
      Self.metadataCalls(recorder.records, in: folder.url) == [
        "listxattr drafts.json",
        "getxattr drafts.json user.tag",
        "fsetxattr <tmp of drafts.json> user.tag 3 bytes",
      ])
    let log = ProtocolLog(recorder.records, folder: folder.url)
    let set = try #require(
      log.lines.firstIndex(of: "fsetxattr <tmp of drafts.json> user.tag 3 bytes"))
    let flush = try #require(log.lines.firstIndex(of: "fullfsync <tmp of drafts.json>"))
    #expect(set < flush)
  }

  @Test(
    "The kernel's own attributes stay with the kernel; the user's and documents' are carried",
    arguments: [
      ("user.tag", true),
      ("com.apple.metadata:_kMDItemUserTags", true),
      ("com.apple.metadata:com_apple_backup_excludeItem", true),
      ("com.apple.quarantine", true),
      ("com.apple.FinderInfo", true),
      ("security.selinux", false),
      ("trusted.overlay.opaque", false),
      ("system.posix_acl_access", false),
      ("com.apple.system.Security", false),
    ])
  func whichAttributes(_ name: String, _ carried: Bool) {
    #expect(FileMetadata.carriesOver(name) == carried)
  }

  @Test("A listing's names are split at their 0 bytes")
  func listingNames() {
    let list = Array("user.a\0com.apple.quarantine\0user.é\0".utf8)
    #expect(FileMetadata.names(in: list) == ["user.a", "com.apple.quarantine", "user.é"])
    #expect(FileMetadata.names(in: []).isEmpty)
  }

  @Test("An attribute over the size limit is left out, and the save goes on")
  func sizeLimit() throws {
    let folder = try TemporaryFolder()
    let source = folder.file("drafts.json")
    let copy = folder.file("copy.json")
    try Data("old".utf8).write(to: source)
    try Data().write(to: copy)
    try Self.setAttribute("user.small", Data(repeating: 1, count: 10), on: source)
    try Self.setAttribute("user.large", Data(repeating: 2, count: 11), on: source)
    var info = stat()
    try #require(stat(source.path, &info) == 0)
    let fd = open(copy.path, O_WRONLY | O_CLOEXEC)
    try #require(fd >= 0)
    defer { close(fd) }
    try FileMetadata.carryOver(
      from: source.path, info: info, to: fd, calls: .live, maximumAttributeSize: 10)
    #expect(Self.attribute("user.small", of: copy) == Data(repeating: 1, count: 10))
    #expect(Self.attribute("user.large", of: copy) == nil)
  }

  @Test("An attribute the new file refuses is left out; the others and the save go on")
  func refusedAttribute() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    try Self.setAttribute("user.refused", Data("no".utf8), on: url)
    try Self.setAttribute("user.tag", Data("Red".utf8), on: url)
    let recorder = SystemCallRecorder { call in
      if case .setAttribute(_, _, "user.refused", _) = call { return EPERM }
      return nil
    }
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(try Data(contentsOf: url) == Data("new".utf8))
    #expect(Self.attribute("user.tag", of: url) == Data("Red".utf8))
    #expect(Self.attribute("user.refused", of: url) == nil)
  }

  @Test("A file system without extended attributes saves as before")
  func noAttributesSupported() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    let recorder = SystemCallRecorder { call in
      if case .listAttributes = call { return ENOTSUP }
      return nil
    }
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(try Data(contentsOf: url) == Data("new".utf8))
  }

  @Test("A value that grows between asking its size and reading it is asked again")
  func growingValue() throws {
    let folder = try TemporaryFolder()
    let copy = folder.file("copy.json")
    try Data().write(to: copy)
    let value = Data(repeating: 9, count: 6000)
    let reads = Mutex(0)
    let set = Mutex<[String: Data]>([:])
    let live = SystemCalls.live
    let calls = SystemCalls(hasProtectionClasses: false) { call in
      switch call {
      case .listAttributes(_, let buffer):
        let names = Array("user.big\0".utf8)
        if buffer.count == 0 { return names.count }
        buffer.copyBytes(from: names)
        return names.count
      case .getAttribute(_, _, let buffer):
        // Asked its size, it answers 5,000 bytes the first time; it has grown to 6,000 when read.
        let read = reads.withLock { count -> Int in
          count += 1
          return count
        }
        if buffer.count == 0 { return read == 2 ? 5000 : value.count }
        guard buffer.count >= value.count else {
          errno = ERANGE
          return -1
        }
        buffer.copyBytes(from: value)
        return value.count
      case .setAttribute(_, let name, let bytes):
        set.withLock { $0[name] = Data(bytes) }
        return 0
      default:
        return live.perform(call)
      }
    }
    var info = stat()
    try #require(stat(copy.path, &info) == 0)
    let fd = open(copy.path, O_WRONLY | O_CLOEXEC)
    try #require(fd >= 0)
    defer { close(fd) }
    try FileMetadata.carryOver(from: copy.path, info: info, to: fd, calls: calls)
    #expect(set.withLock { $0 } == ["user.big": value])
  }

  @Test("The owner and group are carried over where the system permits it")
  func ownerSurvives() throws {
    try #require(geteuid() == 0, "only root may give a file to another user")
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    try #require(chown(url.path, 4321, 8765) == 0)
    try #require(chmod(url.path, 0o640) == 0)
    try LocalFileSystem().writeAtomically(Data("new".utf8), to: url)
    var info = stat()
    try #require(stat(url.path, &info) == 0)
    #expect(info.st_uid == 4321)
    #expect(info.st_gid == 8765)
    #expect(info.st_mode & 0o7777 == 0o640)
  }

  @Test(
    "An owner the system will not carry over is not an error; the set-user-ID bit stays behind")
  func ownerRefused() throws {
    try #require(geteuid() == 0, "only root may give a file to another user")
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    try #require(chown(url.path, 4321, 8765) == 0)
    try #require(chmod(url.path, 0o6755) == 0)
    // As for a user who may write the file but does not own it.
    let recorder = SystemCallRecorder { call in
      if case .fchown = call { return EPERM }
      return nil
    }
    try LocalFileSystem(calls: recorder.calls).writeAtomically(Data("new".utf8), to: url)
    #expect(try Data(contentsOf: url) == Data("new".utf8))
    var info = stat()
    try #require(stat(url.path, &info) == 0)
    #expect(info.st_uid == geteuid())
    #expect(info.st_mode & 0o7777 == 0o755)
    // The owner, then the group alone, were asked for.
    #expect(
      Self.metadataCalls(recorder.records, in: folder.url).filter { $0.hasPrefix("fchown") } == [
        "fchown <tmp of drafts.json> 4321:8765 -> Operation not permitted",
        "fchown <tmp of drafts.json> \(UInt32.max):8765 -> Operation not permitted",
      ])
  }

  /// `recorder`'s calls with a Data Protection class read and given as `classes` says.
  static func calls(_ recorder: SystemCallRecorder, protectionClasses classes: Classes)
    -> SystemCalls
  {
    let recorded = recorder.calls
    return SystemCalls(hasProtectionClasses: true) { call in
      switch call {
      case .protectionClass(let path): Int(classes.get(path))
      case .setProtectionClass(let fd, let protectionClass): Int(classes.set(fd, protectionClass))
      default: recorded.perform(call)
      }
    }
  }

  /// How a test's device answers for Data Protection classes, as iOS does.
  struct Classes: Sendable {
    var get: @Sendable (_ path: String) -> Int32
    var set: @Sendable (_ fd: Int32, _ protectionClass: Int32) -> Int32
  }

  static func recordingClasses(_ recorder: SystemCallRecorder) -> Classes {
    Classes(
      get: { _ in 1 },
      set: { _, protectionClass in
        recorder.mark("setclass \(protectionClass)")
        return 0
      })
  }

  @Test("The file's Data Protection class is given to the new file before any byte is written")
  func protectionClassSurvives() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    let recorder = SystemCallRecorder()
    let classes = Self.recordingClasses(recorder)
    let fileSystem = LocalFileSystem(calls: Self.calls(recorder, protectionClasses: classes))
    try fileSystem.writeAtomically(Data("new".utf8), to: url)
    let lines = ProtocolLog(recorder.records, folder: folder.url).lines
    let set = try #require(lines.firstIndex(of: "-- setclass 1"))
    let write = try #require(lines.firstIndex { $0.hasPrefix("write <tmp of drafts.json>") })
    #expect(set < write)
  }

  @Test("A change kept because its save was refused is writable while the device is locked")
  func unsavedChangeClass() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    let recorder = SystemCallRecorder()
    let classes = Self.recordingClasses(recorder)
    let fileSystem = LocalFileSystem(calls: Self.calls(recorder, protectionClasses: classes))
    let kept = Quarantine.url(for: url, marker: Quarantine.unsavedMarker)
    try fileSystem.createAtomically(Data("change".utf8), at: kept)
    let conflict = Quarantine.url(for: url, marker: Quarantine.conflictMarker)
    try fileSystem.createAtomically(Data("theirs".utf8), at: conflict)
    let lines = ProtocolLog(recorder.records, folder: folder.url).lines
    #expect(lines.filter { $0.hasPrefix("-- setclass") } == ["-- setclass 3"], "\(lines)")
  }

  @Test("A class the new file cannot take fails the save and leaves the file as it was")
  func protectionClassRefused() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    // As iOS answers while the device is locked: a class A file cannot be made then.
    let classes = Classes(
      get: { _ in 1 },
      set: { _, _ in
        errno = EPERM
        return -1
      })
    let fileSystem = LocalFileSystem(
      calls: Self.calls(SystemCallRecorder(), protectionClasses: classes))
    #expect(throws: FileSystemError(.write, path: url.path, reason: .permissionDenied)) {
      try fileSystem.writeAtomically(Data("new".utf8), to: url)
    }
    #expect(try Data(contentsOf: url) == Data("old".utf8))
    #expect(folder.names == ["drafts.json"])
  }

  @Test("A file without a class, or whose class cannot be read, takes the folder's default")
  func noProtectionClass() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("drafts.json")
    try Data("old".utf8).write(to: url)
    let sets = Mutex(0)
    for answer: Int32 in [0, -1] {
      let classes = Classes(
        get: { _ in
          errno = EPERM
          return answer
        },
        set: { _, _ in
          sets.withLock { $0 += 1 }
          return 0
        })
      let fileSystem = LocalFileSystem(
        calls: Self.calls(SystemCallRecorder(), protectionClasses: classes))
      try fileSystem.writeAtomically(Data("new".utf8), to: url)
    }
    #expect(sets.withLock { $0 } == 0)
  }
}
