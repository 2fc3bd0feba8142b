import FaultInjection
import Foundation
@_spi(Testing) import Keepsake
import Testing

@testable import KeepsakeTesting

/// Storage faults scripted in the same text form as a mock's faults.
@Suite("Fault plans for the in-memory file system")
struct FaultPlanBridgeTests {
  let url = URL(fileURLWithPath: "/app/notes.json")

  @Test("A plan fails exactly the calls it names, with the disk error it names")
  func planFailsNamedCalls() async throws {
    let disk = InMemoryFileSystem()
    let faults = try disk.injectFaults("rename=1*off->throw(diskFull)->off")
    try await StorageContext.withValue(.inMemory(fileSystem: disk)) {
      @Shared(.fileStorage(url, saveInterval: .seconds(3_600))) var notes = [String]()
      $notes.withLock { $0 = ["one"] }
      try await $notes.save()
      $notes.withLock { $0.append("two") }
      await #expect(throws: SharedSaveError.self) { try await $notes.save() }
      guard case .writeFailed(_, let underlying)? = $notes.saveError else {
        Issue.record("expected a write failure, got \(String(describing: $notes.saveError))")
        return
      }
      #expect((underlying as? FileSystemError)?.reason == .diskFull)
      try await $notes.save()
      #expect(try disk.contents(of: url) == Data(#"["one","two"]"#.utf8))
    }
    #expect(faults.callCount(.rename) == 3)
  }

  @Test(
    "Each disk error name fails the operation with its reason",
    arguments: [
      ("diskFull", FileSystemError.Reason.diskFull), ("permissionDenied", .permissionDenied),
      ("ioError", .ioError), ("timeout", .ioError),
    ])
  func errorNames(_ name: String, _ reason: FileSystemError.Reason) throws {
    let disk = InMemoryFileSystem()
    try disk.injectFaults("write=throw(\(name))")
    #expect {
      try disk.writeAtomically(Data("x".utf8), to: url)
    } throws: { error in
      (error as? FileSystemError)?.reason == reason
    }
  }

  @Test("Bad plan text is refused with its place, and installs nothing")
  func badText() throws {
    let disk = InMemoryFileSystem()
    #expect(throws: FaultPlanParseError.self) {
      try disk.injectFaults("frobnicate=throw(diskFull)")
    }
    do {
      try disk.injectFaults("write=throw(diskFul)")
    } catch {
      #expect(error.message.hasPrefix("unknown error 'diskFul'; expected diskFull, ioError, "))
    }
    try disk.writeAtomically(Data("x".utf8), to: url)
    #expect(disk.faultHandler == nil)
  }
}
