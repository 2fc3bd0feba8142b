import Foundation
import Synchronization

/// This device's copies of recent versions of files in synced folders: the merge bases of the
/// engines' conflict copies, kept *outside* the synced folders so that no engine ever carries
/// them to another device.
///
/// It lives in `$XDG_STATE_HOME/keepsake/` when that is set, else in Application Support on
/// Apple platforms and `~/.local/state/keepsake/` on the others, on the storage context's file system: under test,
/// on the test's own disk. Per file, a folder holds whole versions, one file each, named
/// `<time>-<kind>-<hash>.json` (`kind`: `w` a save of this device, `m` a merge this device
/// wrote, `r` a version it read, `k` a change an older version kept beside it, which this
/// device took in), so that every process of the device shares them without an
/// index to lock. Beside them, `waiting-<hash>` marks a save of this device whose merge back
/// waits for a base. It also keeps the device's ID (`device`), which this device's saves write
/// into their ancestry.
///
/// It is a cache of the data in the files, never the only copy of anything: losing it (a
/// crash before a record is written, a person removing the folder) makes the next merge fall
/// back to an older common version or the key's default, and the conflict report says so.
struct BaseStore: Sendable {
  /// What a stored version was to this device.
  enum Kind: String, Sendable {
    /// A save of this device.
    case wrote = "w"
    /// A merge of a conflict copy, written by this device.
    case merged = "m"
    /// A version this device read (another device's, or another process's).
    case read = "r"
    /// Not a version: the file of a change an older version of the app kept beside it, which
    /// this device took in (see `Ancestry.keptChangeWriter`), kept to build merge bases with.
    case keptChange = "k"

    /// Written by this device, so only this device may hold it.
    var isOwn: Bool { self == .wrote || self == .merged }
  }

  /// One stored version.
  struct Record: Equatable, Sendable {
    var name: String
    var stamp: UInt64
    var kind: Kind
    var hash: String
    /// For a merge of a plain file: the two versions it merged (their hashes).
    var parents: [String]
  }

  let fileSystem: any FileSystem
  /// The `keepsake` state folder.
  let root: URL
  /// The storage context whose file system this is.
  ///
  /// The scope in which versions not yet written are seen (see
  /// ``recordLater(_:hash:kind:keeping:of:)``): two contexts may have the same paths on
  /// different disks (a test's devices), so a version is never seen beyond its own.
  private let context: StorageContext?

  /// The most versions of a file kept: the newest, as many as ``keptBytes`` allows, between
  /// ``fewestKept`` and this; and beyond them the newest of each kind below.
  ///
  /// NB: generous, because the base a merge needs is a version both sides had, which may be
  /// hundreds of saves old when devices edit busily while apart (see the devices campaign in
  /// `Tools/README.md`).
  static let keptVersions = 256
  /// ``keptVersions`` for this store (tests keep fewer).
  var keptVersions = BaseStore.keptVersions
  /// How many of this device's own saves and merges are kept beyond those.
  static let keptOwn = 8
  /// How many versions read from elsewhere are kept beyond those.
  static let keptRead = 8
  /// About the most bytes kept for one file: a large file keeps fewer versions.
  static let keptBytes = 16 << 20
  /// The fewest versions kept of a file, however large.
  static let fewestKept = 16

  /// The store of `context`: its file system, at the platform's state folder.
  init(context: StorageContext, environment: [String: String]? = nil) {
    self.init(
      context: context,
      root: Self.defaultRoot(environment: environment ?? ProcessInfo.processInfo.environment))
  }

  /// The store of `context`, at `root`.
  init(context: StorageContext, root: URL) {
    self.fileSystem = context.fileSystem
    self.root = root
    self.context = context
  }

  /// A store on `fileSystem` alone: it writes every version at once (there is no context to
  /// scope the versions not yet written to).
  init(fileSystem: any FileSystem, root: URL) {
    self.fileSystem = fileSystem
    self.root = root
    self.context = nil
  }

  /// `$XDG_STATE_HOME/keepsake` on every platform; else Application Support's `keepsake`
  /// folder on Apple platforms and `~/.local/state/keepsake` on the others.
  static func defaultRoot(
    environment: [String: String], applicationSupport: URL? = UserFolders.applicationSupport
  ) -> URL {
    UserFolders.state(environment: environment, applicationSupport: applicationSupport)
      .appendingPathComponent("keepsake", isDirectory: true)
  }

  // MARK: - The device

  /// This device's ID, made on first use: seven characters of base 32 (as Syncthing's short IDs).
  ///
  /// - Throws: ``FileSystemError`` when the state folder cannot be read or written.
  func deviceID() throws -> String {
    let url = root.appendingPathComponent("device")
    if let known = Self.knownDevices.withLock({ $0[cacheKey(url)] }) { return known }
    let lock = try fileSystem.lockExclusively(url)
    defer { lock.release() }
    if let data = try fileSystem.contents(of: url, maximumSize: 64) {
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      if Ancestry.isDevice(text[...]), text.count == 7 {
        remember(text, at: url)
        return text
      }
    }
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    let id = String((0..<7).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    try fileSystem.writePrivately(Data((id + "\n").utf8), to: url)
    remember(id, at: url)
    return id
  }

  /// Device IDs already read, on the real disk only: an in-memory disk of a test is fresh each
  /// time and must not inherit another test's device.
  private static let knownDevices = Mutex<[String: String]>([:])

  private func cacheKey(_ url: URL) -> String {
    fileSystem is LocalFileSystem ? url.path : ""
  }

  private func remember(_ id: String, at url: URL) {
    guard fileSystem is LocalFileSystem else { return }
    Self.knownDevices.withLock { $0[url.path] = id }
  }

  // MARK: - Versions of a file

  /// The folder of `file`'s versions: its name and a hash of its path, so that two files of the
  /// same name never share one.
  func folder(for file: URL) -> URL {
    let path = file.standardizedFileURL.path
    let name = file.lastPathComponent.filter { $0 != "/" }
    return root.appendingPathComponent("versions", isDirectory: true)
      .appendingPathComponent(
        "\(name)-\(FileVersion.hash(of: Data(path.utf8)))", isDirectory: true)
  }

  /// The stored versions of `file`, newest first, with those handed to
  /// ``recordLater(_:hash:kind:keeping:of:)`` and not written yet.
  func records(for file: URL) -> [Record] {
    let folder = folder(for: file)
    // NB: the unwritten ones first: one written in between is then on disk when listed.
    let unwritten = unwritten(in: folder)
    return records(listed: (try? fileSystem.contentsOfDirectory(at: folder)) ?? [], unwritten)
  }

  /// The versions among `names`, a listing of a file's folder, with `unwritten`, newest first.
  private func records(listed names: [String], _ unwritten: [Unwritten]) -> [Record] {
    let unwritten = unwritten.map(\.record)
    let listed = names.compactMap(Self.record(named:))
    let onDisk = Set(listed.map(\.name))
    return (listed + unwritten.filter { !onDisk.contains($0.name) }).sorted {
      $0.stamp > $1.stamp
    }
  }

  /// The bytes of the version of `file` whose hash is `hash`, if this device keeps it.
  func contents(ofVersion hash: String, of file: URL, maximumSize: Int) -> Data? {
    for record in records(for: file) where record.hash == hash {
      if let data = contents(of: record, of: file, maximumSize: maximumSize) { return data }
    }
    return nil
  }

  /// The bytes of `record`, if they are still there and intact.
  func contents(of record: Record, of file: URL, maximumSize: Int) -> Data? {
    let folder = folder(for: file)
    if let waiting = unwritten(in: folder).first(where: { $0.record.name == record.name }) {
      return waiting.data.count <= maximumSize ? waiting.data : nil
    }
    // NB: a copy whose bytes no longer hash to its name (damaged) is not a base.
    guard
      let data = try? fileSystem.contents(
        of: folder.appendingPathComponent(record.name), maximumSize: maximumSize),
      FileVersion.hash(of: data) == record.hash
    else { return nil }
    return data
  }

  /// Keeps `data`, a version of `file` whose hash is `hash`, then drops what the bounds no
  /// longer keep; failures are ignored (see the type's note: this is a cache).
  ///
  /// `keeping` names versions kept beyond the bounds, if this device has them: the newest
  /// version of each device that `data` lists (see `FileVersion.newestOfEachDevice`).
  func record(
    _ data: Data, hash: String, kind: Kind, parents: [String] = [], keeping: Set<String> = [],
    of file: URL
  ) {
    write(Self.newRecord(hash: hash, kind: kind, parents: parents), data, keeping, of: file)
  }

  /// Keeps `data` as ``record(_:hash:kind:parents:keeping:of:)`` does, on the sync queue, so the
  /// caller (a save, a read) does not wait for the store's disk; every reader of this store's
  /// context sees it at once, and records keep the order of the calls.
  ///
  /// A merge that looked before the queue wrote it would miss a save of this device that the
  /// file no longer has (the queue can be held for seconds by a scan waiting for a lock).
  func recordLater(
    _ data: Data, hash: String, kind: Kind, keeping: Set<String> = [], of file: URL
  ) {
    let record = Self.newRecord(hash: hash, kind: kind, parents: [])
    guard let key = unwrittenKey(folder(for: file)) else {
      write(record, data, keeping, of: file)
      return
    }
    let waiting = Unwritten(record: record, data: data)
    Self.unwritten.withLock { $0[key, default: []].append(waiting) }
    // NB: the store, and so its context, is held until the version is written: no other
    // context can take its identity meanwhile.
    SyncState.queue.async {
      write(record, data, keeping, of: file)
      Self.unwritten.withLock { table in
        table[key]?.removeAll { $0.record.name == record.name }
        if table[key]?.isEmpty == true { table[key] = nil }
      }
    }
  }

  private func write(_ record: Record, _ data: Data, _ keeping: Set<String>, of file: URL) {
    let folder = folder(for: file)
    let unwritten = unwritten(in: folder)
    let names = (try? fileSystem.contentsOfDirectory(at: folder)) ?? []
    let existing = records(listed: names, unwritten).filter { $0.name != record.name }
    // The same version of the same kind is already kept: nothing new to learn.
    if existing.contains(where: {
      $0.hash == record.hash && $0.kind == record.kind && $0.parents == record.parents
    }) {
      return
    }
    try? fileSystem.writePrivately(data, to: folder.appendingPathComponent(record.name))
    evict(
      [record] + existing, versionSize: data.count, keeping: keeping,
      waiting: Set(names.compactMap(Self.waitingSave(named:))), of: file)
  }

  // MARK: - Saves waiting to be merged back

  /// Marks this device's save of `file` whose hash is `hash` as waiting for a base before it is
  /// merged back into the file (see `SyncResolver.restoreOverwrittenSaves`): a process started
  /// later judges it too, and the bounds keep it, however many saves come after.
  ///
  /// NB: a file of its own beside the versions (`waiting-<hash>`), not a new record: the record
  /// keeps its name, which every process of the device reads without a lock.
  func markWaiting(_ hash: String, of file: URL) {
    try? fileSystem.writePrivately(
      Data(), to: folder(for: file).appendingPathComponent(Self.waitingPrefix + hash))
  }

  /// Removes the mark of ``markWaiting(_:of:)``: the save was merged back, or is no longer one
  /// to merge back.
  func unmarkWaiting(_ hash: String, of file: URL) {
    try? fileSystem.removeItem(
      at: folder(for: file).appendingPathComponent(Self.waitingPrefix + hash))
  }

  /// This device's saves and merges of `file`, newest first, and the hashes of those marked
  /// waiting (see ``markWaiting(_:of:)``), from one listing of the folder.
  func ownSaves(of file: URL) -> (saves: [Record], waiting: Set<String>) {
    let folder = folder(for: file)
    let unwritten = unwritten(in: folder)
    let names = (try? fileSystem.contentsOfDirectory(at: folder)) ?? []
    return (
      records(listed: names, unwritten).filter(\.kind.isOwn),
      Set(names.compactMap(Self.waitingSave(named:)))
    )
  }

  private static let waitingPrefix = "waiting-"

  private static func waitingSave(named name: String) -> String? {
    guard name.hasPrefix(waitingPrefix) else { return nil }
    let hash = name.dropFirst(waitingPrefix.count)
    return hash.count == 12 ? String(hash) : nil
  }

  /// A version handed to the sync queue and not yet on disk.
  private struct Unwritten: Sendable {
    let record: Record
    let data: Data
  }

  /// Where versions not yet written are kept: a store folder of one context.
  private struct UnwrittenKey: Hashable {
    let context: ObjectIdentifier
    let folder: String
  }

  /// The versions handed to the sync queue and not yet on disk.
  private static let unwritten = Mutex<[UnwrittenKey: [Unwritten]]>([:])

  private func unwrittenKey(_ folder: URL) -> UnwrittenKey? {
    context.map { UnwrittenKey(context: ObjectIdentifier($0), folder: folder.path) }
  }

  private func unwritten(in folder: URL) -> [Unwritten] {
    guard let key = unwrittenKey(folder) else { return [] }
    return Self.unwritten.withLock { $0[key] ?? [] }
  }

  /// Removes the versions the bounds do not keep: the newest (see ``keptVersions``), and beyond
  /// them the newest ``keptOwn`` of this device's and ``keptRead`` read ones, those `keeping`
  /// names, and this device's saves marked `waiting` (whose marks outlive them no longer).
  private func evict(
    _ records: [Record], versionSize: Int, keeping: Set<String>, waiting: Set<String>,
    of file: URL
  ) {
    let newest = min(keptVersions, max(Self.fewestKept, Self.keptBytes / max(1, versionSize)))
    var keep = Set(records.filter { keeping.contains($0.hash) }.map(\.name))
    keep.formUnion(records.filter { $0.kind.isOwn && waiting.contains($0.hash) }.map(\.name))
    var seen: Set<String> = []
    var own = 0
    var read = 0
    var kept = 0
    for record in records {
      // One copy per version and kind: the newest.
      guard seen.insert("\(record.kind.rawValue)\(record.hash)").inserted else { continue }
      if kept < newest {
        kept += 1
        keep.insert(record.name)
      } else if record.kind.isOwn && own < Self.keptOwn {
        keep.insert(record.name)
        own += 1
      } else if !record.kind.isOwn && read < Self.keptRead {
        keep.insert(record.name)
        read += 1
      }
    }
    let folder = folder(for: file)
    for record in records where !keep.contains(record.name) {
      try? fileSystem.removeItem(at: folder.appendingPathComponent(record.name))
    }
    let saves = Set(records.filter(\.kind.isOwn).map(\.hash))
    for hash in waiting where !saves.contains(hash) { unmarkWaiting(hash, of: file) }
  }

  // MARK: - Names

  private static func name(stamp: UInt64, kind: Kind, hash: String, parents: [String]) -> String {
    let digits = String(stamp)
    let padded = String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    return ([padded, kind.rawValue, hash] + parents).joined(separator: "-") + ".json"
  }

  private static func newRecord(hash: String, kind: Kind, parents: [String]) -> Record {
    let stamp = nextStamp()
    return Record(
      name: name(stamp: stamp, kind: kind, hash: hash, parents: parents), stamp: stamp,
      kind: kind, hash: hash, parents: parents)
  }

  static func record(named name: String) -> Record? {
    guard name.hasSuffix(".json") else { return nil }
    let parts = name.dropLast(5).split(separator: "-")
    guard parts.count == 3 || parts.count == 5, let stamp = UInt64(parts[0]),
      let kind = Kind(rawValue: String(parts[1])),
      parts.dropFirst(2).allSatisfy({ $0.count == 12 })
    else { return nil }
    return Record(
      name: name, stamp: stamp, kind: kind, hash: String(parts[2]),
      parents: parts.dropFirst(3).map(String.init))
  }

  /// Microseconds since 1970, strictly increasing within the process.
  private static func nextStamp() -> UInt64 {
    let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
    return lastStamp.withLock { last in
      last = max(now, last + 1)
      return last
    }
  }

  private static let lastStamp = Mutex<UInt64>(0)
}
