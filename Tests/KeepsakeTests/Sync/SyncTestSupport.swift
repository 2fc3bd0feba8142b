import Foundation
import Observation
import Synchronization
import Testing

@testable import Keepsake

/// A folder Syncthing keeps in step, on a test's in-memory disk: its marker is a `.stfolder`
/// file (as Syncthing before 0.14 made it; the in-memory disk has no empty folders).
struct SyncedFolder {
  let disk: InMemoryFileSystem
  let folder: URL
  let context: StorageContext

  init(
    disk: InMemoryFileSystem = InMemoryFileSystem(), name: String = "device",
    at folder: URL = URL(fileURLWithPath: "/home/ann/Sync")
  ) {
    self.disk = disk
    self.folder = folder
    self.context = .inMemory(name: name, fileSystem: disk)
    disk.setContents(Data(), at: folder.appendingPathComponent(".stfolder"))
  }

  var notesURL: URL { folder.appendingPathComponent("notes.json") }

  /// The file `name` in the folder.
  func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// The names in the folder, without the marker and lock files.
  var names: [String] {
    ((try? disk.contentsOfDirectory(at: folder)) ?? []).filter {
      $0 != ".stfolder" && !$0.hasSuffix(".lock")
    }
  }

  func bytes(_ name: String) -> Data? { try? disk.contents(of: url(name)) }

  func put(_ data: Data, as name: String) { disk.setContents(data, at: url(name)) }
}

/// Notes in a versioned format with a history: version 1 called the text `body`.
nonisolated enum NotesFormat: VersionedFormat {
  static let currentVersion = 2
  static let migrations =
    MigrationChain
    .starting(at: 1, with: [OldNote].self)
    .migratingJSON(to: 2, as: [Note].self) { content in
      try content.updateElements { note in try note.renameKey("body", to: "text") }
    }
}

/// A note of version 1; identified, so an older app's value of them merges.
struct OldNote: Codable, Equatable, Identifiable, Sendable {
  var id: Int
  var body: String
}

/// The notes format as version 1 of the app knew it: an older app, which cannot read the
/// files of ``NotesFormat``.
nonisolated enum OldNotesFormat: VersionedFormat {
  typealias Value = [OldNote]
  static let currentVersion = 1
}

/// Settings that cannot merge, in a versioned format.
nonisolated enum SettingsFormat: VersionedFormat {
  typealias Value = Settings
  static let currentVersion = 1
}

extension SharedKey where Self == FileStorageKey<[Note]> {
  /// Notes in `NotesFormat`; a device that lacks a base waits `baseWait` for another one.
  static func notes(_ url: URL, baseWait: Duration = .seconds(3600)) -> Self {
    var options = SyncOptions()
    options.baseWait = baseWait
    return FileStorageKey.fileStorage(url, format: NotesFormat.self).syncOptions(options)
  }
}

extension Array where Element == Note {
  /// The notes' texts by identifier: what a test compares.
  ///
  /// NB: a note twice (a bad merge) shows both texts, joined, and fails the comparison; a trap
  /// would end the whole test run.
  var texts: [Int: String] {
    Dictionary(map { ($0.id, $0.text) }, uniquingKeysWith: { "\($0) | twice: \($1)" })
  }
}

/// This device and another one, on this device's disk: what each would write, to fabricate the
/// versions a sync engine leaves behind.
struct TwoDevices {
  let here: SyncedFolder
  let key: FileStorageKey<[Note]>

  init(folder: SyncedFolder = SyncedFolder(), baseWait: Duration = .seconds(3600)) {
    here = folder
    key = .notes(folder.notesURL, baseWait: baseWait)
  }

  /// Saves `notes` through the key, as this device's app does, and returns the bytes written.
  @discardableResult
  func save(_ notes: [Note]) throws -> Data {
    try key.save(notes, in: here.context)
    waitForRecords()
    return try #require(here.bytes("notes.json"))
  }

  /// The bytes another device writes when it saves `notes` over `parent`.
  func theirs(_ notes: [Note], over parent: Data?, device: String = "BOBBBBB") throws -> Data {
    let version = parent.map { FileVersion($0, readsAncestry: true) }
    return try NotesFormat.encode(notes, ancestry: .child(of: version, writer: device))
  }

  /// The notes in the file now.
  func stored() throws -> [Note] { try NotesFormat.decode(try #require(here.bytes("notes.json"))) }

  /// Merges the copies now.
  @discardableResult
  func merge() -> [String] {
    let merged = key.mergeConflictCopies(in: here.context)
    waitForRecords()
    return merged
  }
}

/// Waits for the sync queue to write what it was given to record: the store is written there.
func waitForRecords() { SyncState.queue.sync {} }

/// Runs `body` while the sync queue is held, as a scan waiting for a file's lock holds it; then
/// lets the queue go and waits for what it was given to record.
func whileSyncQueueIsHeld<T>(_ body: () throws -> T) rethrows -> T {
  let held = DispatchSemaphore(value: 0)
  SyncState.queue.async { held.wait() }
  defer {
    held.signal()
    waitForRecords()
  }
  return try body()
}

/// Waits until `condition` holds, woken by each change of the observable state it reads; `false`
/// if it did not hold within `timeout` (generous: it turns a change that never comes into a
/// failure, it is no speed requirement).
///
/// NB: an observation's `onChange` runs before the new value is stored, so a wait woken by it
/// can read the old value and re-arm too late for the store: after each change the condition
/// is read again a few times over some milliseconds. `waitUntil` was measured missing exactly
/// such a change (a `lastConflict` set from the sync queue) until its timeout.
func eventually(
  timeout: Duration = .seconds(30), _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    let wake = ChangeSignal()
    let holds = withObservationTracking(condition) { wake.fire() }
    if holds { return true }
    await wake.wait(until: deadline)
    for settle in [0, 1, 5, 20] {
      try? await Task.sleep(for: .milliseconds(settle))
      if condition() { return true }
    }
  }
  return condition()
}

/// One change, awaited once: fired by an observation's `onChange` on any thread.
private final class ChangeSignal: Sendable {
  private let state = Mutex<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

  func fire() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.fired = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Returns once fired, or at `deadline`.
  func wait(until deadline: ContinuousClock.Instant) async {
    let timeout = Task {
      try? await Task.sleep(until: deadline)
      self.fire()
    }
    defer { timeout.cancel() }
    await withCheckedContinuation { continuation in
      let fired = state.withLock { state -> Bool in
        if state.fired { return true }
        state.waiter = continuation
        return false
      }
      if fired { continuation.resume() }
    }
  }
}
