import Foundation

// Saves of this device that another device's version replaced, merged back into the file (see
// the type's step 3).
extension SyncResolver {
  /// Merges back each recent save of this device that the file does not include (see the
  /// type's step 3).
  ///
  /// NB: only saves within ``Ancestry/recentWindow`` generations of the file are judged: the
  /// file lists every version that recent, so a save it does not list is one it does not
  /// include. An older save the file may include without listing it is left alone.
  func restoreOverwrittenSaves(into file: inout File, outcome: inout Outcome) {
    guard let fileData = file.data else { return }
    let store = store
    var mine = FileVersion(fileData, readsAncestry: true)
    guard let fileAncestry = mine.ancestry else { return }
    let (own, marked) = store.ownSaves(of: target.url)
    // NB: the device's newest saves, and older ones whose merge back waits for a base: the
    // device may save more often than it keeps saves while that wait lasts, and a save no
    // longer judged would never be merged back. The store marks those, so that a process
    // started after the one that waited (an app quit meanwhile) judges them too.
    let judged =
      own.prefix(BaseStore.keptOwn)
      + own.dropFirst(BaseStore.keptOwn).filter {
        marked.contains($0.hash) || state.isWaiting(for: Self.name(ofSave: $0.hash))
      }
    let stopWaiting = { (hash: String) in
      state.stopWaiting(for: Self.name(ofSave: hash))
      if marked.contains(hash) { store.unmarkWaiting(hash, of: target.url) }
    }
    for record in judged {
      let name = Self.name(ofSave: record.hash)
      // NB: every recent save is judged, not only the newest: a save made over another
      // device's version that had dropped an earlier one is included, the earlier one is not.
      if mine.includes(record.hash) {
        stopWaiting(record.hash)
        continue
      }
      guard
        let data = store.contents(of: record, of: target.url, maximumSize: target.maximumFileSize)
      else { continue }
      let save = FileVersion(data, readsAncestry: true)
      guard let saveAncestry = save.ancestry,
        saveAncestry.generation > fileAncestry.generation - Ancestry.recentWindow,
        !save.includes(mine.hash), !mine.commonVersions(with: save).isEmpty
      else {
        stopWaiting(record.hash)
        continue
      }
      let other = OtherVersion(
        name: name, origin: .overwrittenSave, read: { data },
        discard: {
          // Known as read from now on, so it is not taken back twice.
          store.record(data, hash: record.hash, kind: .read, of: target.url)
        })
      var scratch = Outcome()
      if target.merge == nil {
        keepOverwrittenSave(data, other, outcome: &scratch)
      } else {
        merge(other, into: &file, atLoad: false, outcome: &scratch)
      }
      outcome.restoredSaves += scratch.merged.count
      outcome.kept += scratch.kept
      outcome.waiting += scratch.waiting
      if !scratch.waiting.isEmpty {
        if !marked.contains(record.hash) { store.markWaiting(record.hash, of: target.url) }
      } else if !scratch.merged.isEmpty || !scratch.kept.isEmpty {
        stopWaiting(record.hash)
      }
      if scratch.stopped {
        outcome.busy = outcome.busy || scratch.busy
        outcome.blocked = outcome.blocked || scratch.blocked
        return
      }
      guard let data = file.data else { return }
      mine = FileVersion(data, readsAncestry: true)
    }
  }

  /// What the save of this device whose hash is `hash` is called in waits and reports.
  static func name(ofSave hash: String) -> String { "save \(hash)" }

  /// A value that cannot merge keeps both: the save goes to a conflict copy beside the file, as
  /// another process's would (`name.conflict-<UTC time>.ext`).
  func keepOverwrittenSave(_ data: Data, _ other: OtherVersion, outcome: inout Outcome) {
    let copy: URL
    do {
      // NB: as every conflict copy: one with these bytes is never written again, and their
      // number stays bounded.
      copy = try ConflictCopies.keep(data, besides: target.url, in: fileSystem).url
      try other.discard()
    } catch {
      outcome.busy = true
      return
    }
    outcome.kept.append(other.name)
    state.report(conflict(.keptBoth(copy: copy), other, base: .notNeeded))
  }
}
