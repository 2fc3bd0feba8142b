import Foundation
import Synchronization
import Testing

@testable import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program that writes the file in place in the instant after a save swapped it in, before
/// the save looked at what it wrote: the save must not take the program's version for its own.
@Suite("An edit in place just after a save's swap")
struct InPlaceAfterSwapTests {
  /// Writes `notes` into the file at `path` in place, as `cp` over it and editors that ignore
  /// the lock do: the same file, truncated, then written.
  static func writeInPlace(_ notes: [Note], at path: String) {
    guard let data = try? JSONEncoder().encode(notes) else { return }
    let fd = open(path, O_WRONLY | O_TRUNC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  @Test("The program's edit is read and merged by the next save, not written over unseen")
  func editAfterTheSwapIsMerged() async throws {
    let disk = try RealDisk()
    let file = disk.file("notes.json")
    try JSONEncoder().encode([Note(id: 1, text: "one")]).write(to: file)
    // (swapped, landed): the editor writes once the save's swap took place, while the save
    // removes what the swap took out, before it flushes the folder.
    let state = Mutex((swapped: false, landed: false))
    let live = SystemCalls.live
    let calls = SystemCalls { call in
      switch call {
      case .exchange:
        let result = live.perform(call)
        state.withLock { $0.swapped = result == 0 }
        return result
      case .unlink:
        let result = live.perform(call)
        let lands = state.withLock { state in
          defer { if state.swapped { state.landed = true } }
          return state.swapped && !state.landed
        }
        if lands {
          Self.writeInPlace([Note(id: 1, text: "one"), Note(id: 9, text: "editor")], at: file.path)
        }
        return result
      default:
        return live.perform(call)
      }
    }
    let context = StorageContext.inMemory(
      name: "app", fileSystem: LocalFileSystem(calls: calls), clock: .manual())
    let notes = disk.shared(
      .fileStorage(file, saveInterval: .seconds(60)), in: context, default: [Note]())
    notes.withLock { $0.append(Note(id: 2, text: "ours")) }
    try await notes.save()
    #expect(state.withLock { $0.landed })
    notes.withLock { $0.append(Note(id: 3, text: "later")) }
    try await notes.save()
    let stored = try JSONDecoder().decode([Note].self, from: Data(contentsOf: file))
    // The editor's version lacked note 2 (it wrote over it, blind: its doing); what it added
    // stays, and so does what this process changed after.
    #expect(Set(stored.map(\.id)) == [1, 3, 9])
    #expect(notes.saveError == nil)
  }
}
