import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import Keepsake

/// Versions a sync engine keeps outside the folder, as iCloud Drive's `NSFileVersion`s: the
/// same object's versions and coordination, in memory.
final class InMemoryVersions: FileVersions {
  private let waiting: Mutex<[(name: String, data: Data)]>
  private let removedNames = Mutex<[String]>([])
  /// What the coordinator answers, or `nil` to let the scan in.
  let refusal: (any Error)?
  /// Whether removing a version fails.
  let removalFails: Bool
  /// Called as each version is removed, with its name: to see what had happened by then.
  let onRemove: @Sendable (String) -> Void

  init(
    _ versions: [(name: String, data: Data)], refusal: (any Error)? = nil,
    removalFails: Bool = false, onRemove: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    waiting = Mutex(versions)
    self.refusal = refusal
    self.removalFails = removalFails
    self.onRemove = onRemove
  }

  /// The versions removed so far, by name.
  var removed: [String] { removedNames.withLock { $0 } }

  func others(of url: URL) -> [OtherVersion] {
    waiting.withLock { $0 }.map { version in
      OtherVersion(
        name: version.name,
        origin: .conflictCopy(
          URL(fileURLWithPath: "/versions/\(version.name)"), engine: .iCloudDrive),
        read: { version.data },
        discard: { [self] in
          if removalFails { throw CocoaError(.fileWriteNoPermission) }
          onRemove(version.name)
          waiting.withLock { $0.removeAll { $0.name == version.name } }
          removedNames.withLock { $0.append(version.name) }
        })
    }
  }

  func coordinate(_ url: URL, _ body: () -> Void) throws {
    if let refusal { throw refusal }
    body()
  }
}

@Suite("Versions kept outside the folder (iCloud Drive)")
struct ICloudVersionsTests {
  let start = [Note(id: 1, text: "milk"), Note(id: 2, text: "bread")]
  let mine = [Note(id: 1, text: "oat milk"), Note(id: 2, text: "bread")]
  let theirs = [Note(id: 1, text: "milk"), Note(id: 2, text: "rye bread")]

  /// One scan of `devices`' file with `versions`.
  func scan(_ devices: TwoDevices, _ versions: InMemoryVersions) -> SyncResolver<[Note]>.Outcome {
    let target = devices.key.syncTarget
    let state = devices.key.sync.state
    _ = state.isSynced(target, in: devices.here.context, data: nil)
    let outcome = SyncResolver(
      target: target, context: devices.here.context, state: state, versions: versions
    ).run(lockTimeout: .seconds(5), atLoad: false)
    waitForRecords()
    return outcome
  }

  @Test("A merged version is removed, and only once the merged file is durably written")
  func mergedThenRemoved() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(mine)
    let writesBefore = devices.here.disk.completedWrites(of: devices.here.notesURL)
    let disk = devices.here.disk
    let url = devices.here.notesURL
    let writesAtRemoval = Mutex<Int?>(nil)
    let versions = InMemoryVersions(
      [("iCloud 1", try devices.theirs(theirs, over: shared))],
      onRemove: { _ in writesAtRemoval.withLock { $0 = disk.completedWrites(of: url) } })

    let outcome = scan(devices, versions)

    #expect(outcome.merged == ["iCloud 1"])
    #expect(versions.removed == ["iCloud 1"])
    #expect(try devices.stored().texts == [1: "oat milk", 2: "rye bread"])
    #expect(writesAtRemoval.withLock { $0 } == writesBefore + 1)
  }

  @Test("A version is not removed when the merged file cannot be written")
  func keptWhenTheWriteFails() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(mine)
    let versions = InMemoryVersions([("iCloud 1", try devices.theirs(theirs, over: shared))])
    devices.here.disk.faultHandler = { operation, _ in
      operation == .rename ? .fail(.diskFull) : nil
    }

    let outcome = scan(devices, versions)

    #expect(outcome.busy)
    #expect(versions.removed.isEmpty)
    devices.here.disk.faultHandler = nil
    #expect(try devices.stored() == mine)
  }

  @Test("A version whose removal fails is reported kept; the file holds the merge")
  func removalFails() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    try devices.save(mine)
    let versions = InMemoryVersions(
      [("iCloud 1", try devices.theirs(theirs, over: shared))], removalFails: true)

    let outcome = scan(devices, versions)

    #expect(outcome.merged.isEmpty)
    #expect(outcome.kept == ["iCloud 1"])
    #expect(try devices.stored().texts == [1: "oat milk", 2: "rye bread"])
  }

  @Test("A coordinator's refusal is an error of the scan: nothing is read, written or removed")
  func refusalSurfaces() throws {
    let devices = TwoDevices()
    let shared = try devices.save(start)
    let file = try devices.save(mine)
    let writes = devices.here.disk.completedWrites(of: devices.here.notesURL)
    let versions = InMemoryVersions(
      [("iCloud 1", try devices.theirs(theirs, over: shared))],
      refusal: CocoaError(.fileReadNoPermission))

    let outcome = scan(devices, versions)

    let refused = try #require(outcome.refused)
    #expect(refused.contains("permission"), "the coordinator's reason: \(refused)")
    #expect(outcome.kept == ["iCloud 1"])
    #expect(versions.removed.isEmpty)
    #expect(devices.here.disk.completedWrites(of: devices.here.notesURL) == writes)
    #expect(devices.here.bytes("notes.json") == file)
  }
}
