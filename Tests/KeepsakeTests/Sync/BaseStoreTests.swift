import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

@Suite("The per-device base store")
struct BaseStoreTests {
  let file = URL(fileURLWithPath: "/home/ann/Sync/notes.json")

  func version(_ number: Int) -> Data { Data(#"{"content":[\#(number)],"version":1}"#.utf8) }

  @Test(
    "It lives in XDG_STATE_HOME on every platform, else in Application Support on Apple platforms, else in ~/.local/state: outside any synced folder",
    arguments: [
      (["XDG_STATE_HOME": "/var/state", "HOME": "/home/ann"], nil, "/var/state/keepsake"),
      (["HOME": "/home/ann"], nil, "/home/ann/.local/state/keepsake"),
      (
        ["XDG_STATE_HOME": "relative", "HOME": "/home/ann"], nil, "/home/ann/.local/state/keepsake"
      ),
      (
        ["XDG_STATE_HOME": "/tmp/two/dev1/state"], "/Users/ann/Library/Application Support",
        "/tmp/two/dev1/state/keepsake"
      ),
      (
        ["HOME": "/Users/ann"], "/Users/ann/Library/Application Support",
        "/Users/ann/Library/Application Support/keepsake"
      ),
    ] as [([String: String], String?, String)])
  func location(_ environment: [String: String], _ support: String?, _ path: String) {
    let support = support.map { URL(fileURLWithPath: $0, isDirectory: true) }
    #expect(
      BaseStore.defaultRoot(environment: environment, applicationSupport: support).path == path)
  }

  @Test("Without HOME the system's home folder stands in, never a relative path")
  func noHome() {
    let root = BaseStore.defaultRoot(environment: [:], applicationSupport: nil)
    #expect(root.path == NSHomeDirectory() + "/.local/state/keepsake")
  }

  @Test("Under test it is on the test's own disk, never the developer's")
  func isolated() throws {
    let disk = InMemoryFileSystem()
    let store = BaseStore(context: .inMemory(fileSystem: disk))
    store.record(version(1), hash: FileVersion.hash(of: version(1)), kind: .wrote, of: file)
    let stored = disk.files.keys.filter { $0.hasPrefix(store.root.path + "/versions/") }
    #expect(stored.count == 1)
  }

  @Test("A version handed to the sync queue is a base at once, while the queue is still busy")
  func recordedLaterIsSeenAtOnce() {
    let disk = InMemoryFileSystem()
    let store = BaseStore(context: .inMemory(fileSystem: disk))
    let older = version(1)
    let newer = version(2)
    store.record(older, hash: FileVersion.hash(of: older), kind: .read, of: file)
    let waiting = whileSyncQueueIsHeld {
      store.recordLater(newer, hash: FileVersion.hash(of: newer), kind: .wrote, of: file)
      let waiting = store.records(for: file)
      #expect(waiting.map(\.kind) == [.wrote, .read])
      #expect(waiting.map(\.hash) == [FileVersion.hash(of: newer), FileVersion.hash(of: older)])
      #expect(
        store.contents(ofVersion: FileVersion.hash(of: newer), of: file, maximumSize: 1_000)
          == newer)
      #expect(store.contents(of: waiting[0], of: file, maximumSize: 1) == nil)
      return waiting
    }
    #expect(store.records(for: file) == waiting)
    let stored = disk.files.keys.filter { $0.hasPrefix(store.root.path + "/versions/") }
    #expect(stored.count == 2)
  }

  @Test("A version not yet written is seen in its own context only, not on another disk's paths")
  func recordedLaterStaysInItsContext() {
    let here = BaseStore(context: .inMemory(fileSystem: InMemoryFileSystem()))
    let elsewhere = BaseStore(context: .inMemory(fileSystem: InMemoryFileSystem()))
    #expect(here.root == elsewhere.root)
    whileSyncQueueIsHeld {
      here.recordLater(
        version(1), hash: FileVersion.hash(of: version(1)), kind: .wrote, of: file)
      #expect(here.records(for: file).count == 1)
      #expect(elsewhere.records(for: file).isEmpty)
    }
    #expect(elsewhere.records(for: file).isEmpty)
  }

  @Test("Its versions of the user's data are its owner's only: files 0600, in folders 0700")
  func privateToItsOwner() throws {
    let folder = try TemporaryFolder()
    let root = folder.url.appendingPathComponent("state/keepsake")
    let store = BaseStore(fileSystem: LocalFileSystem(), root: root)
    _ = try store.deviceID()
    store.record(version(1), hash: FileVersion.hash(of: version(1)), kind: .wrote, of: file)
    let manager = FileManager.default
    var checked = 0
    let everything = try #require(manager.enumerator(atPath: root.path))
    for case let path as String in everything {
      let attributes = try manager.attributesOfItem(atPath: root.path + "/" + path)
      let mode = (attributes[FileAttributeKey.posixPermissions] as? Int ?? 0) & 0o777
      let isFolder = attributes[FileAttributeKey.type] as? FileAttributeType == .typeDirectory
      // NB: lock files are empty: they hold nothing to read.
      if path.hasSuffix(".lock") { continue }
      if isFolder {
        if path.hasPrefix("versions") {
          #expect(mode == 0o700, "\(path): \(String(mode, radix: 8))")
        }
      } else {
        #expect(mode == 0o600, "\(path): \(String(mode, radix: 8))")
        checked += 1
      }
    }
    #expect(checked == 2, "the device's ID and one version")
  }

  @Test("The device's ID is made once and read back by every later store, as after a restart")
  func deviceSurvivesRestart() throws {
    let disk = InMemoryFileSystem()
    let root = URL(fileURLWithPath: "/state/keepsake")
    let first = try BaseStore(fileSystem: disk, root: root).deviceID()
    #expect(first.count == 7)
    #expect(Ancestry.isDevice(first[...]))
    #expect(try BaseStore(fileSystem: disk, root: root).deviceID() == first)
    let elsewhere = try BaseStore(fileSystem: InMemoryFileSystem(), root: root).deviceID()
    #expect(elsewhere != first, "another disk is another device (or one chance in 34 billion)")
  }

  @Test("A version kept before a restart is found by its hash afterwards")
  func versionsSurviveRestart() {
    let disk = InMemoryFileSystem()
    let root = URL(fileURLWithPath: "/state/keepsake")
    let hash = FileVersion.hash(of: version(1))
    BaseStore(fileSystem: disk, root: root).record(version(1), hash: hash, kind: .read, of: file)
    let later = BaseStore(fileSystem: disk, root: root)
    #expect(later.contents(ofVersion: hash, of: file, maximumSize: 1000) == version(1))
  }

  @Test("A kept version whose bytes were damaged is not offered as a base")
  func damagedVersionIsNotABase() throws {
    let disk = InMemoryFileSystem()
    let store = BaseStore(fileSystem: disk, root: URL(fileURLWithPath: "/state/keepsake"))
    let hash = FileVersion.hash(of: version(1))
    store.record(version(1), hash: hash, kind: .read, of: file)
    let record = try #require(store.records(for: file).first)
    disk.setContents(
      Data("garbage".utf8), at: store.folder(for: file).appendingPathComponent(record.name))
    #expect(store.contents(ofVersion: hash, of: file, maximumSize: 1000) == nil)
  }

  @Test("It keeps a bounded number of versions: the newest, and this device's and others' beyond")
  func bounded() {
    let disk = InMemoryFileSystem()
    var store = BaseStore(fileSystem: disk, root: URL(fileURLWithPath: "/state/keepsake"))
    store.keptVersions = 20
    store.record(version(0), hash: FileVersion.hash(of: version(0)), kind: .read, of: file)
    for number in 1...(store.keptVersions + 40) {
      store.record(
        version(number), hash: FileVersion.hash(of: version(number)), kind: .wrote, of: file)
    }
    let records = store.records(for: file)
    #expect(records.count == store.keptVersions + BaseStore.keptOwn + 1)
    #expect(
      records.first?.hash == FileVersion.hash(of: version(store.keptVersions + 40)),
      "the newest is kept")
    #expect(
      records.contains { $0.hash == FileVersion.hash(of: version(0)) },
      "the version last received from elsewhere is kept beyond the newest")
  }

  @Test(
    "A save marked waiting to be merged back is kept beyond the bounds, seen by a later store, and its mark goes with it"
  )
  func waitingSaveOutlivesTheBounds() {
    let disk = InMemoryFileSystem()
    let root = URL(fileURLWithPath: "/state/keepsake")
    var store = BaseStore(fileSystem: disk, root: root)
    store.keptVersions = 20
    let waiting = FileVersion.hash(of: version(0))
    store.record(version(0), hash: waiting, kind: .wrote, of: file)
    store.markWaiting(waiting, of: file)
    func save(_ numbers: ClosedRange<Int>) {
      for number in numbers {
        store.record(
          version(number), hash: FileVersion.hash(of: version(number)), kind: .wrote, of: file)
      }
    }
    save(1...(store.keptVersions + 40))
    #expect(store.records(for: file).contains { $0.hash == waiting }, "kept while it waits")
    #expect(BaseStore(fileSystem: disk, root: root).ownSaves(of: file).waiting == [waiting])
    store.unmarkWaiting(waiting, of: file)
    save(100...100)
    #expect(!store.records(for: file).contains { $0.hash == waiting }, "bounded again")
    // A mark whose save is gone (removed by hand) is dropped by the next save.
    let gone = FileVersion.hash(of: version(1))
    store.markWaiting(gone, of: file)
    save(101...101)
    #expect(store.ownSaves(of: file).waiting.isEmpty)
  }

  @Test("A large file keeps fewer versions, never fewer than the fewest")
  func largeFilesKeepFewer() {
    let store = BaseStore(
      fileSystem: InMemoryFileSystem(), root: URL(fileURLWithPath: "/state/keepsake"))
    let big = BaseStore.keptBytes / 4
    for number in 1...40 {
      let data = Data(repeating: UInt8(number), count: big)
      store.record(data, hash: FileVersion.hash(of: data), kind: .read, of: file)
    }
    #expect(store.records(for: file).count == BaseStore.fewestKept + BaseStore.keptRead)
  }

  @Test("Two files of the same name in different folders keep their versions apart")
  func filesApart() {
    let store = BaseStore(
      fileSystem: InMemoryFileSystem(), root: URL(fileURLWithPath: "/state/keepsake"))
    let other = URL(fileURLWithPath: "/home/ann/Other/notes.json")
    #expect(store.folder(for: file) != store.folder(for: other))
  }
}
