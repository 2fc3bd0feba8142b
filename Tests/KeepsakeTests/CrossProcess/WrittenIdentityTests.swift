import Foundation
import Synchronization
import Testing

@testable import Keepsake

/// A save remembers the file it wrote by the file itself, not by a look at its name: a program
/// that puts its own file at the name in the instant after the save (an editor that ignores the
/// lock) is not taken for the save, and its version is merged, never written over.
@Suite("The identity a save remembers")
struct WrittenIdentityTests {
  /// The real disk, with an editor that replaces the file right after a save put its own in.
  final class EditorAfterSave: ForwardingFileSystem, @unchecked Sendable {
    let file: URL
    private let next = Mutex<Data?>(nil)

    init(file: URL) {
      self.file = file
      super.init(LocalFileSystem())
    }

    /// The next save of the file is followed at once by `data`, written as an editor does.
    func edit(afterNextSave data: Data) { next.withLock { $0 = data } }

    override func replaceAtomically(
      _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
    ) throws -> FileIdentity? {
      let written = try base.replaceAtomically(
        data, at: url, expecting: expected, creatingFolder: creatingFolder)
      if url == file,
        let edit = next.withLock({ edit in
          defer { edit = nil }
          return edit
        })
      {
        try base.writeAtomically(edit, to: url)
      }
      return written
    }
  }

  @Test("A file an editor puts in place right after a save is merged by the next save")
  func editorRightAfterASave() async throws {
    let disk = try RealDisk()
    let url = disk.file("notes.json")
    let editor = EditorAfterSave(file: url)
    let process = StorageContext.inMemory(name: "process", fileSystem: editor, clock: .manual())
    let notes = disk.shared(
      .fileStorage(url, saveInterval: .seconds(60)), in: process, default: [Note]())
    notes.withLock { $0.append(Note(id: 1, text: "ours")) }
    editor.edit(
      afterNextSave: try JSONEncoder().encode([
        Note(id: 1, text: "ours"), Note(id: 2, text: "the editor's"),
      ]))
    try await notes.save()
    notes.withLock { $0.append(Note(id: 3, text: "later")) }
    try await notes.save()

    let stored = try JSONDecoder().decode([Note].self, from: Data(contentsOf: url))
    #expect(Set(stored.map(\.id)) == [1, 2, 3], "the editor's note is kept: \(stored)")
    try await process.flush()
  }
}
