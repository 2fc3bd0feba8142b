import Foundation
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

/// A folder is taken for a synced one only from evidence.
///
/// The evidence is an engine's marker, or a conflict copy seen beside the file. Outside synced
/// folders a file keeps exactly the bytes its format writes.
@Suite("Synced folders, from evidence only")
struct SyncEvidenceTests {
  @Test("The first save into a folder that does not exist yet writes no ancestry and no versions")
  func newFolderIsNotSynced() async throws {
    let folder = try TemporaryFolder()
    let url = folder.file("new/deeper/notes.json")
    let context = StorageContext.inMemory(
      name: "app", fileSystem: LocalFileSystem(), clock: .manual())
    let notes = StorageContext.withValue(context) {
      Shared(
        .fileStorage(url, format: NotesFormat.self, saveInterval: .seconds(60)), default: [Note]())
    }
    notes.withLock { $0.append(Note(id: 1, text: "one")) }
    try await notes.save()
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(!text.contains("ancestry"), "\(text)")
  }
}
