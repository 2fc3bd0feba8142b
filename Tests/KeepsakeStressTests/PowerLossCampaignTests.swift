import Foundation
import KeepsakeStress
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Power-loss campaign", .serialized)
struct PowerLossCampaignTests {
  /// A configuration small enough for `swift test`.
  static func small() -> PowerLossCampaign.Configuration {
    var configuration = PowerLossCampaign.Configuration()
    configuration.statesPerCut = 64
    return configuration
  }

  @Test("The real writer leaves no bad state under either model")
  func realWriter() async {
    let report = await PowerLossCampaign(Self.small()).run()
    #expect(report.passed, "\(report)")
    #expect(report[figure: "steps"] == 8)
    for model in PersistenceModel.allCases {
      #expect(report[figure: "\(model): bad states"] == 0, "\(report)")
      #expect((report[figure: "\(model): states checked"] ?? 0) > 100, "\(report)")
    }
  }

  @Test(
    "A broken write protocol that SIGKILL cannot tell apart is caught",
    arguments: BrokenWriter.Flaw.allCases)
  func brokenWriter(_ flaw: BrokenWriter.Flaw) async {
    var configuration = Self.small()
    // NB: a broken writer leaves far more states per cut; a few per cut are enough to see it.
    configuration.statesPerCut = 16
    configuration.fileSystem = { BrokenWriter(flaw: flaw, calls: $0) }
    let report = await PowerLossCampaign(configuration).run()
    #expect(!report.passed, "\(flaw)")
    #expect((report[figure: "posix: bad states"] ?? 0) > 0, "\(flaw): \(report)")
    let ext4 = report[figure: "ext4-ordered: bad states"] ?? 0
    switch flaw {
    case .noFileFsync:
      // NB: ext4's replace-by-rename rule writes a renamed file's data before the rename, which
      // hides this flaw there; POSIX promises nothing of the kind (and other file systems,
      // and ext4 in other modes, do not do it).
      #expect(ext4 == 0, "\(report)")
      #expect(report.failures.contains { $0.contains("torn") || $0.contains("zero bytes") })
    case .noFolderFsync:
      #expect(ext4 > 0, "\(report)")
      #expect(report.failures.contains { $0.contains("lost an acknowledged save") })
    case .temporaryElsewhere:
      #expect(ext4 > 0, "\(report)")
      #expect(report.failures.contains { $0.contains("does not load") })
    case .newFolderNotFlushed:
      // NB: on ext4 the next fsync commits the mkdir with everything else.
      #expect(ext4 == 0, "\(report)")
      #expect(report.failures.contains { $0.contains("inbox/drafts.json lost an acknowledged") })
    }
  }
}

/// A writer with one step of the durable protocol (data-safety rule "Writes are atomic and
/// durable", DataSafety.md) done wrong, on the same recorded system calls as the real one: the
/// flaws that pass every `SIGKILL` campaign.
///
/// Everything but ``writeAtomically(_:to:)`` is the real ``LocalFileSystem``'s.
struct BrokenWriter: FileSystem {
  /// What the writer gets wrong.
  enum Flaw: String, CaseIterable, Sendable, CustomStringConvertible {
    case noFileFsync = "no fsync of the temporary file"
    case noFolderFsync = "no fsync of the folder after the rename"
    case temporaryElsewhere =
      "the temporary file in the system's temporary folder, so a copy instead of a rename"
    case newFolderNotFlushed = "a new folder not flushed into its parent"

    var description: String { rawValue }
  }

  let flaw: Flaw
  let calls: SystemCalls
  let base: LocalFileSystem

  init(flaw: Flaw, calls: SystemCalls) {
    self.flaw = flaw
    self.calls = calls
    self.base = LocalFileSystem(calls: calls)
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    let target = url.resolvingSymlinksInPath()
    let folder = target.deletingLastPathComponent()
    try createFolder(folder)
    let name =
      ".\(target.lastPathComponent).keepsake-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    switch flaw {
    case .noFileFsync, .noFolderFsync, .newFolderNotFlushed:
      let temporary = folder.appendingPathComponent(name).path
      try write(data, to: temporary, flags: O_CREAT | O_EXCL, flush: flaw != .noFileFsync)
      try check(calls.rename(temporary, target.path), target.path)
      if flaw != .noFolderFsync { try flushFolder(folder.path) }
    case .temporaryElsewhere:
      let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
      try write(data, to: temporary, flags: O_CREAT | O_EXCL, flush: true)
      // NB: `rename` across file systems fails with EXDEV; a mover then copies the bytes over
      // the target in place, carefully flushed, and removes the temporary file.
      try write(data, to: target.path, flags: O_CREAT | O_TRUNC, flush: true)
      try check(calls.unlink(temporary), temporary)
      try flushFolder(folder.path)
    }
  }

  private func write(_ data: Data, to path: String, flags: Int32, flush: Bool) throws {
    let fd = calls.open(path, O_WRONLY | O_CLOEXEC | flags, 0o644)
    try check(fd, path)
    defer { _ = calls.close(fd) }
    try data.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let count = calls.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), offset)
        try check(count, path)
        offset += count
      }
    }
    if flush { try check(calls.fullFlush(fd), path) }
  }

  private func createFolder(_ folder: URL) throws {
    let parent = folder.deletingLastPathComponent()
    if calls.mkdir(folder.path, 0o777) == 0 {
      if flaw != .newFolderNotFlushed { try flushFolder(parent.path) }
    } else if errno == ENOENT {
      try createFolder(parent)
      try check(calls.mkdir(folder.path, 0o777), folder.path)
      if flaw != .newFolderNotFlushed { try flushFolder(parent.path) }
    } else if errno != EEXIST {
      try check(-1, folder.path)
    }
  }

  private func flushFolder(_ path: String) throws {
    let fd = calls.open(path, O_RDONLY | O_CLOEXEC, 0)
    try check(fd, path)
    defer { _ = calls.close(fd) }
    try check(calls.fullFlush(fd), path)
  }

  private func check<R: BinaryInteger>(_ result: R, _ path: String) throws {
    if result < 0 { throw FileSystemError(.write, path: path, reason: .init(errno: errno)) }
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try base.contents(of: url, maximumSize: maximumSize)
  }
  func removeItem(at url: URL) throws { try base.removeItem(at: url) }
  func contentsOfDirectory(at url: URL) throws -> [String] {
    try base.contentsOfDirectory(at: url)
  }
  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    base.watch(url, onChange: onChange)
  }
  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    // The lock file's folder is this writer's to create: a save locks before it writes.
    try createFolder(url.resolvingSymlinksInPath().deletingLastPathComponent())
    return try base.lockExclusively(url, timeout: timeout)
  }
  func identity(of url: URL) throws -> FileIdentity? { try base.identity(of: url) }
}
