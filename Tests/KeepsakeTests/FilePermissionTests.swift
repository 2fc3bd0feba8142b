import Foundation
import KeepsakeTesting
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files Keepsake creates are never readable by more users than the store they belong to, not
/// even for the instant between their creation and their permissions being set.
@Suite("Permissions of the files Keepsake creates")
struct FilePermissionTests {
  /// The live calls, noting the permissions of every file created, as they are right after the
  /// `open` that created it.
  final class Modes: Sendable {
    let byName = Mutex<[String: mode_t]>([:])
  }

  static func noting(_ modes: Modes) -> SystemCalls {
    let live = SystemCalls.live
    return SystemCalls { call in
      let result = live.perform(call)
      if case .open(let path, let flags, _) = call, result >= 0, flags & O_CREAT != 0 {
        var info = stat()
        if fstat(Int32(truncatingIfNeeded: result), &info) == 0 {
          modes.byName.withLock {
            $0[(path as NSString).lastPathComponent] = info.st_mode & 0o777
          }
        }
      }
      return result
    }
  }

  @Test("Saving a private store never creates a file others could read, even for an instant")
  func privateStoreStaysPrivate() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("secrets.json")
    try JSONEncoder().encode(["one"]).write(to: url)
    #expect(chmod(url.path, 0o600) == 0)
    let modes = Modes()
    let context = StorageContext.inMemory(
      name: "app", fileSystem: LocalFileSystem(calls: Self.noting(modes)), clock: .manual())
    let secrets = StorageContext.withValue(context) {
      Shared(.fileStorage(url, saveInterval: .seconds(60)), default: [String]())
    }
    secrets.withLock { $0.append("two") }
    try await secrets.save()
    let created = modes.byName.withLock { $0 }.filter { !$0.key.hasSuffix(".lock") }
    #expect(!created.isEmpty)
    for (name, mode) in created {
      #expect(mode & 0o077 == 0, "\(name) was created \(String(mode, radix: 8))")
    }
    var info = stat()
    #expect(stat(url.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  @Test("A copy kept beside a private store is private too")
  func copyOfPrivateStore() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("secrets.json")
    try Data("[]".utf8).write(to: url)
    #expect(chmod(url.path, 0o600) == 0)
    let copy = Quarantine.url(for: url, marker: Quarantine.conflictMarker)
    try LocalFileSystem().createAtomically(Data("[1]".utf8), at: copy)
    var info = stat()
    #expect(stat(copy.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
  }
}
