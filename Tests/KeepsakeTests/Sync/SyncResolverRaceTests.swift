import Foundation
import Synchronization
import Testing

@testable import Keepsake

/// The merge of a sync engine's copy writes in place of the file it read, and of nothing else:
/// a version the engine (or an editor) puts in while the merge runs is never written over.
@Suite("A copy's merge meeting the file replaced meanwhile")
struct SyncResolverRaceTests {
  /// A disk on which, right after the file is read once, another version takes its place: the
  /// engine pulling the other device's next save, between the merge's read and its write.
  final class ReplacedAfterRead: ForwardingFileSystem, @unchecked Sendable {
    let file: URL
    let disk: InMemoryFileSystem
    private let arrival = Mutex<Data?>(nil)

    init(_ disk: InMemoryFileSystem, file: URL) {
      self.disk = disk
      self.file = file
      super.init(disk)
    }

    /// The next read of the file is followed by `data` in its place.
    func replace(afterNextReadWith data: Data) { arrival.withLock { $0 = data } }

    override func contents(of url: URL, maximumSize: Int) throws -> Data? {
      let read = try base.contents(of: url, maximumSize: maximumSize)
      if url == file,
        let data = arrival.withLock({ data in
          defer { data = nil }
          return data
        })
      {
        disk.setContents(data, at: url, notifyingWatchers: false)
      }
      return read
    }
  }

  @Test("The version put in meanwhile stays, and the copy stays beside it for the next merge")
  func versionPutInMeanwhileStays() throws {
    let disk = InMemoryFileSystem()
    let folder = SyncedFolder(disk: disk)
    let racing = ReplacedAfterRead(disk, file: folder.notesURL)
    let context = StorageContext.inMemory(name: "device", fileSystem: racing)
    let devices = TwoDevices(folder: SyncedFolder(disk: disk))
    let start = [Note(id: 1, text: "milk")]
    let shared = try devices.save(start)
    try devices.save(start + [Note(id: 2, text: "tea")])
    let copyName = "notes.sync-conflict-20261201-152748-6IHVPYN.json"
    devices.here.put(
      try devices.theirs(start + [Note(id: 3, text: "jam")], over: shared), as: copyName)
    let arrived = try devices.theirs(
      start + [Note(id: 3, text: "jam"), Note(id: 4, text: "bread")], over: shared,
      device: "CAROLLL")
    racing.replace(afterNextReadWith: arrived)

    let merged = devices.key.mergeConflictCopies(in: context)
    waitForRecords()

    #expect(merged.isEmpty, "nothing merged over a file it did not read")
    #expect(devices.here.bytes("notes.json") == arrived, "the version that arrived, untouched")
    #expect(devices.here.names.contains(copyName), "the copy waits for the next merge")

    #expect(devices.merge() == [copyName], "the next merge takes it in")
    #expect(
      try devices.stored().texts == [1: "milk", 2: "tea", 3: "jam", 4: "bread"],
      "the version that arrived, with this device's save it went over put back")
  }
}
