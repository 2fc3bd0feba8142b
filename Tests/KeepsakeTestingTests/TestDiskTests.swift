import FaultInjection
import Foundation
import Keepsake
import KeepsakeTesting
import Testing

/// The test author's way to the running test's in-memory disk, with public API only.
@Suite("TestDisk")
struct TestDiskTests {
  let url = URL(fileURLWithPath: "/app/notes.json")

  @Test("The running test's disk is the one its keys write to")
  func currentIsTheTestsDisk() async throws {
    let disk = try #require(TestDisk.current)
    @Shared(.fileStorage(url)) var notes = [String]()
    $notes.withLock { $0 = ["one"] }
    try await $notes.save()
    #expect(disk.contents(of: url) == Data(#"["one"]"#.utf8))
    #expect(disk.files[url.path] == Data(#"["one"]"#.utf8))
    #expect(disk.completedWrites(of: url) == 1)
    let same = try #require(TestDisk($notes.storageContext))
    #expect(same.contents(of: url) == disk.contents(of: url))
  }

  @Test("Bytes set on the disk are what a key reads, as an older app would have left them")
  func seededBytesAreRead() throws {
    let disk = try #require(TestDisk.current)
    disk.setContents(Data(#"["seeded"]"#.utf8), at: url)
    @Shared(.fileStorage(url)) var notes = [String]()
    #expect(notes == ["seeded"])
  }

  @Test("A fault plan fails the calls it names through the public API")
  func faultPlan() async throws {
    let disk = try #require(TestDisk.current)
    let faults = try disk.injectFaults("rename=throw(diskFull)")
    @Shared(.fileStorage(url)) var notes = [String]()
    $notes.withLock { $0 = ["one"] }
    await #expect(throws: SharedSaveError.self) { try await $notes.save() }
    guard case .writeFailed(_, let underlying)? = $notes.saveError else {
      Issue.record("expected a write failure, got \(String(describing: $notes.saveError))")
      return
    }
    #expect((underlying as? FileSystemError)?.reason == .diskFull)
    #expect(disk.contents(of: url) == nil)
    #expect(faults.callCount(.rename) >= 1)
  }

  @Test("A context whose files are not in memory has no test disk")
  func realDiskHasNone() async {
    #expect(TestDisk(.live) == nil)
    await withConfinedStorage { _ in
      #expect(TestDisk.current == nil)
    }
  }
}
