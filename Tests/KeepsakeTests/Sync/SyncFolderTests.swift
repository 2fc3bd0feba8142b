import Foundation
import Testing

@testable import Keepsake

/// The sync engine of a folder on the real disk, where each folder's answer is kept for the
/// process: a folder inside a synced tree is synced, one beside the tree is not, whatever was
/// asked before (the answers of the folders on the way up are kept too).
@Suite("Sync folders")
struct SyncFolderTests {
  /// A fresh tree: `root/synced/.stfolder` (a Syncthing marker), and `root/plain`.
  private static func tree() throws -> URL {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-sync-folders-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("synced/.stfolder"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("plain"), withIntermediateDirectories: true)
    return root
  }

  @Test("Folders beside a synced tree are not synced, after a folder inside it was asked")
  func besideTheTree() throws {
    let root = try Self.tree()
    defer { try? FileManager.default.removeItem(at: root) }
    let disk = LocalFileSystem()
    let deep = root.path + "/synced/a/b"
    #expect(SyncFolder.engine(containingPath: deep, in: disk) == .syncthing)
    // The folders walked on the way up (`a`, then `synced`) answer from what was kept.
    #expect(SyncFolder.engine(containingPath: root.path + "/synced/a/c", in: disk) == .syncthing)
    #expect(SyncFolder.engine(containingPath: root.path + "/synced", in: disk) == .syncthing)
    // Above the marker, nothing is synced: the walk stopped at the marker's folder.
    #expect(SyncFolder.engine(containingPath: root.path, in: disk) == nil)
    #expect(SyncFolder.engine(containingPath: root.path + "/plain", in: disk) == nil)
    #expect(SyncFolder.engine(containingPath: root.path + "/plain/x", in: disk) == nil)
  }

  @Test("A synced tree below a folder already asked is still found")
  func belowAnAnsweredFolder() throws {
    let root = try Self.tree()
    defer { try? FileManager.default.removeItem(at: root) }
    let disk = LocalFileSystem()
    #expect(SyncFolder.engine(containingPath: root.path + "/plain/x", in: disk) == nil)
    // `root` was answered (no engine) by that walk; the marker below it is still looked for.
    #expect(SyncFolder.engine(containingPath: root.path + "/synced/d", in: disk) == .syncthing)
    #expect(SyncFolder.engine(containingPath: root.path + "/synced", in: disk) == .syncthing)
  }
}
