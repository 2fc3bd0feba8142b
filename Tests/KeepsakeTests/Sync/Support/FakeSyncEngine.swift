import Foundation

@testable import Keepsake

/// A folder-sync engine in miniature, between devices on in-memory disks.
///
/// It follows Syncthing's rules for one folder: each device's version of each name has a version
/// vector; a scan turns a local change into a new version; syncing two devices takes the version that includes the other's,
/// and for two concurrent versions keeps the winner under the name and the other as a conflict
/// copy (`name.sync-conflict-<date>-<time>-<device>.ext`), which then syncs like any file. Equal
/// bytes never conflict; a deletion loses to a change.
///
/// NB: written apart from Keepsake's code and from the real engine's: the campaign checks the
/// real one; this one makes three devices and many offline periods a deterministic unit test.
final class FakeSyncEngine {
  struct Version: Equatable {
    /// `nil` for a deletion.
    var data: Data?
    var vector: [Int: Int]

    func includes(_ other: Version) -> Bool {
      other.vector.allSatisfy { device, count in (vector[device] ?? 0) >= count }
    }
  }

  let folders: [SyncedFolder]
  /// What the engine last recorded of each device's names.
  private var known: [[String: Version]]
  private var copies = 0
  /// Conflict copies made so far.
  private(set) var conflicts = 0

  init(_ folders: [SyncedFolder]) {
    self.folders = folders
    self.known = Array(repeating: [:], count: folders.count)
  }

  /// The names the engine carries: not its marker, Keepsake's lock files or temporary files.
  private func carried(_ device: Int) -> [String: Data] {
    var files: [String: Data] = [:]
    for name in folders[device].names where !name.hasPrefix(".") {
      if let data = folders[device].bytes(name) { files[name] = data }
    }
    return files
  }

  /// Records the device's local changes as new versions.
  func scan(_ device: Int) {
    let files = carried(device)
    for (name, data) in files where known[device][name]?.data != data {
      var vector = known[device][name]?.vector ?? [:]
      vector[device, default: 0] += 1
      known[device][name] = Version(data: data, vector: vector)
    }
    for (name, version) in known[device] where version.data != nil && files[name] == nil {
      var vector = version.vector
      vector[device, default: 0] += 1
      known[device][name] = Version(data: nil, vector: vector)
    }
  }

  /// Syncs two connected devices, both ways; returns whether anything changed.
  @discardableResult
  func sync(_ a: Int, _ b: Int) -> Bool {
    scan(a)
    scan(b)
    var changed = false
    for name in Set(known[a].keys).union(known[b].keys).sorted() {
      let mine = known[a][name]
      let theirs = known[b][name]
      switch (mine, theirs) {
      case (let mine?, nil): changed = take(mine, name, into: b) || changed
      case (nil, let theirs?): changed = take(theirs, name, into: a) || changed
      case (let mine?, let theirs?):
        if mine == theirs { continue }
        if mine.includes(theirs) {
          changed = take(mine, name, into: b) || changed
        } else if theirs.includes(mine) {
          changed = take(theirs, name, into: a) || changed
        } else {
          resolve(mine, a, theirs, b, name)
          changed = true
        }
      case (nil, nil): continue
      }
    }
    return changed
  }

  /// Puts `version` of `name` on `device`'s disk.
  private func take(_ version: Version, _ name: String, into device: Int) -> Bool {
    let before = folders[device].bytes(name)
    folders[device].disk.setContents(version.data, at: folders[device].url(name))
    known[device][name] = version
    return before != version.data
  }

  /// Two concurrent versions: equal bytes merge their vectors; a deletion loses to a change;
  /// otherwise the later device's version wins the name, and the other becomes a copy on both.
  private func resolve(_ mine: Version, _ a: Int, _ theirs: Version, _ b: Int, _ name: String) {
    var vector = mine.vector
    for (device, count) in theirs.vector { vector[device] = max(vector[device] ?? 0, count) }
    if mine.data == theirs.data || mine.data == nil || theirs.data == nil {
      let kept = Version(data: mine.data ?? theirs.data, vector: vector)
      _ = take(kept, name, into: a)
      _ = take(kept, name, into: b)
      return
    }
    let (winner, loser, loserDevice) = a > b ? (mine, theirs, b) : (theirs, mine, a)
    conflicts += 1
    copies += 1
    let (stem, ext) = ConflictCopyName.split(name)
    let time = String(format: "%06d", copies)
    let device = ["AAAAAAA", "BBBBBBB", "CCCCCCC", "DDDDDDD"][loserDevice % 4]
    let copy = "\(stem).sync-conflict-20261201-\(time)-\(device)\(ext)"
    let copyVersion = Version(data: loser.data, vector: [loserDevice: 1])
    for device in [a, b] {
      _ = take(copyVersion, copy, into: device)
      _ = take(Version(data: winner.data, vector: vector), name, into: device)
    }
  }
}
