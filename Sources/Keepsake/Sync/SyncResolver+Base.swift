import Foundation

// The merge base of a copy and the file: the version both sides started from.
//
// With ancestry (versioned formats), it is their newest common version, named by the lists the
// two versions carry: the same on every device. A device that does not hold that version waits
// for one that does (its merge arrives through the engine, and the copy with it goes away), up
// to `SyncOptions.baseWait`; then it takes the newest older common version it holds, or the
// key's default, and says so in the report. Once merged, the result names both sides as its
// parents, so two devices that merged the same copy differently meet again with both parents as
// common versions, and the next merge is the same everywhere: the design converges.
//
// Without ancestry (plain JSON), only this device's own history is there to guess from.

extension SyncResolver {
  /// The value to merge against and what it is, or `nil` to wait (for a device that holds the
  /// base, or at load for the reference's default).
  func findBase(
    _ mine: FileVersion, _ copy: FileVersion, for name: String, atLoad: Bool
  ) -> (Value, SyncedVersion.MergeBase)? {
    if mine.ancestry != nil && copy.ancestry != nil {
      let common = mine.commonVersions(with: copy)
      let versions = common.filter { !$0.isKeptChange }
      let keptChanges = common.filter(\.isKeptChange)
      if let (value, tops) = newestCommon(versions) {
        if let based = applying(keptChanges, notIn: tops, to: value) {
          return (based, .newestCommonVersion)
        }
        if atLoad || state.waited(for: name) < target.options.baseWait { return nil }
        // NB: without the kept changes both sides took in, it is not their newest common base.
        return (value, .olderCommonVersion)
      }
      if !versions.isEmpty {
        if atLoad || state.waited(for: name) < target.options.baseWait { return nil }
        for entry in versions.dropFirst() {
          guard let data = heldData(entry.hash), let value = try? target.decode(data) else {
            continue
          }
          let version = FileVersion(data, readsAncestry: true)
          return (applying(keptChanges, notIn: [version], to: value) ?? value, .olderCommonVersion)
        }
      }
      // NB: no common version at all: no device can hold one, so there is nothing to wait for.
      guard let fallback = state.fallback(as: Value.self) else { return nil }
      return (applying(keptChanges, notIn: [], to: fallback) ?? fallback, .missing)
    }
    if let value = guessedBase(mine, copy) { return (value, .guessed) }
    guard let fallback = state.fallback(as: Value.self) else { return nil }
    return (fallback, .missing)
  }

  /// `value`, a version's (or several's: `versions`), with the kept changes both sides took in
  /// (`keptChanges`) that none of `versions` has merged into it, as their take-in merged them;
  /// `nil` when this device does not hold one of them.
  ///
  /// Two devices that each took in a kept change, apart, both hold it on top of their newest
  /// common version: against that version alone, what a later change undid of it on one side
  /// (a deletion) would look like nothing, and the other side's would win.
  private func applying(
    _ keptChanges: [Ancestry.Entry], notIn versions: [FileVersion], to value: Value
  ) -> Value? {
    let needed = Set(
      keptChanges.lazy.map(\.hash).filter { hash in !versions.contains { $0.includes(hash) } })
    guard let changes = heldKeptChanges(needed) else { return nil }
    var result = value
    for data in changes {
      guard let next = target.applyKeptChange(data, result) else { return nil }
      result = next
    }
    return result
  }

  /// `ours` and `theirs`, each without the elements the kept changes only the other side took
  /// in deleted and that side lacks (see
  /// `FieldMerge.removingDeletions(from:to:in:lackedBy:removed:)`), and the places of those
  /// removed.
  ///
  /// A kept change one line took in while it no longer held an element the change deleted
  /// changed nothing there; against the two lines' common version, the other line, which still
  /// holds the element, would bring it back. Only deletions are replayed, and only of elements
  /// the line that took the change in lacks: it carries the rest, and where it holds the element
  /// the merge decides as it would without the change.
  ///
  /// What a change deleted comes from the versions that list it (see `Ancestry.Deletions`), or
  /// else from the change itself where this device holds it: the device that took the change
  /// in may be the only one that ever held it. A change whose deletions neither gives (too
  /// large to carry, listed before the recent window, or written by a build that did not carry
  /// them) merges as without it rather than wait: waiting as for a base held a copy unmerged
  /// while the file took in further kept changes, and lost more than it saved (the three-device
  /// simulation's older app).
  func removingOneSidedDeletions(
    _ mine: FileVersion, _ copy: FileVersion, ours: Value, theirs: Value
  ) -> (ours: Value, theirs: Value, removed: [String]) {
    guard mine.ancestry != nil, copy.ancestry != nil else { return (ours, theirs, []) }
    let onlyMine = Set(
      mine.lineage.filter { $0.isKeptChange && !copy.includes($0.hash) }.map(\.hash))
    let onlyCopy = Set(
      copy.lineage.filter { $0.isKeptChange && !mine.includes($0.hash) }.map(\.hash))
    guard !onlyMine.isEmpty || !onlyCopy.isEmpty else { return (ours, theirs, []) }
    var sides = (ours: ours, theirs: theirs, removed: [String]())
    for deletions in self.deletions(onlyMine, listedBy: mine) {
      guard let (value, removed) = target.removeKeptDeletions(deletions, sides.theirs, ours)
      else { continue }
      sides.theirs = value
      sides.removed += removed
    }
    for deletions in self.deletions(onlyCopy, listedBy: copy) {
      guard let (value, removed) = target.removeKeptDeletions(deletions, sides.ours, theirs)
      else { continue }
      sides.ours = value
      sides.removed += removed
    }
    return sides
  }

  /// What the kept changes named `hashes` deleted: as `version`, which lists them, carries it;
  /// then from those of the others this device holds, in the order it took them in.
  private func deletions(_ hashes: Set<String>, listedBy version: FileVersion) -> [[JSONValue]] {
    let carried = (version.ancestry?.deletions ?? []).filter { hashes.contains($0.change) }
    let held = heldKeptChanges(hashes.subtracting(carried.map(\.change)), allOrNone: false)
    return carried.map(\.steps) + (held ?? []).compactMap(target.keptDeletions)
  }

  /// The bytes of the kept changes named `hashes`, in the order this device took them in;
  /// `nil` when it does not hold one of them and `allOrNone`, else those it holds.
  private func heldKeptChanges(_ hashes: Set<String>, allOrNone: Bool = true) -> [Data]? {
    guard !hashes.isEmpty else { return [] }
    // In the order this device took them in, oldest first (the store's records are newest
    // first): a later change of the same writer holds an earlier one as a step, and the
    // earlier one merged after it would undo it.
    let records = store.records(for: target.url).reversed().filter {
      $0.kind == .keptChange && hashes.contains($0.hash)
    }
    if allOrNone, Set(records.map(\.hash)) != hashes { return nil }
    var changes: [Data] = []
    for record in records {
      guard
        let data = store.contents(
          of: record, of: target.url,
          maximumSize: StorageContext.unsavedReadLimit(target.maximumFileSize))
      else {
        if allOrNone { return nil }
        continue
      }
      changes.append(data)
    }
    return changes
  }

  /// The base of two versions whose common versions are `common` (newest first), and the
  /// versions it is made of; `nil` when there are none or this device does not hold what it
  /// takes.
  ///
  /// Usually the newest common version. But when devices merged copies concurrently, two common
  /// versions may each be newer than the other's history (a criss-cross: neither includes the
  /// other), and taking one alone would make a change of the other look new on one side only (a
  /// deletion would come back). The base is then their merge, against their own newest common
  /// version, as git's recursive strategy does: the same on every device that holds them.
  private func newestCommon(_ common: [Ancestry.Entry]) -> (Value, [FileVersion])? {
    guard let newest = common.first else { return nil }
    var tops: [(version: FileVersion, value: Value)] = []
    for entry in common {
      // NB: older than the recent window of the newest, whether one includes it cannot be
      // told from its list; by then it is in practice an ancestor of the newest.
      if entry.generation <= newest.generation - Ancestry.recentWindow { break }
      if tops.contains(where: { $0.version.includes(entry.hash) }) { continue }
      guard let data = heldData(entry.hash), let value = try? target.decode(data) else {
        return nil
      }
      tops.append((FileVersion(data, readsAncestry: true), value))
    }
    guard tops.count > 1 else { return tops.first.map { ($0.value, [$0.version]) } }
    guard let merge = target.merge else { return nil }
    var shared = Set(tops[0].version.lineage.map(\.hash))
    for top in tops.dropFirst() { shared.formIntersection(top.version.lineage.map(\.hash)) }
    let inner =
      tops[0].version.lineage.filter { shared.contains($0.hash) && !$0.isKeptChange }
      .sorted(by: Ancestry.Entry.newerFirst)
      .lazy.compactMap { held($0.hash) }.first ?? state.fallback(as: Value.self)
    guard let inner else { return nil }
    var value = tops[0].value
    for top in tops.dropFirst() {
      value = merge.merge(base: inner, ours: value, theirs: top.value).value
    }
    return (value, tops.map(\.version))
  }

  /// This device's best guess for files without ancestry (see ``SyncedVersion/MergeBase/guessed``).
  ///
  /// 1. When one side is a merge this device wrote, the two devices merged the same pair into
  ///    different results (their guesses differed): the pair's first version, the file as it
  ///    was then, is what both take now, so they agree from here on.
  /// 2. Otherwise the newest version this device has that the other device has too, as far as it
  ///    can tell: one it received from elsewhere, or a merge it wrote (the same on every device).
  ///    Its own plain saves are left out: they may never have reached the other device.
  private func guessedBase(_ mine: FileVersion, _ copy: FileVersion) -> Value? {
    let records = store.records(for: target.url)
    for side in [mine.hash, copy.hash] {
      let merge = records.first { (record: BaseStore.Record) in
        record.kind == .merged && record.hash == side && record.parents.count == 2
      }
      if let merge, let value = held(merge.parents[0]) { return value }
    }
    let saves = Set(
      records.filter { (record: BaseStore.Record) in record.kind == .wrote }.map(\.hash))
    for record in records
    where record.kind == .merged || (record.kind == .read && !saves.contains(record.hash)) {
      if let value = held(record.hash) { return value }
    }
    return nil
  }

  /// The base document of the file and a copy, when this device keeps their newest common
  /// version: `base`, the value they merge against, with what that version's bytes hold that
  /// the model does not read; the base the members the model does not read are merged from.
  ///
  /// NB: the value, not the version's bytes alone: where the base is more than one version (a
  /// criss-cross's merge, kept changes both sides took in), the bytes' fields the model reads
  /// would differ from it, and the documents' merge would find conflicts the values' did not.
  func newestCommonData(_ mine: FileVersion, _ copy: FileVersion, base: Value) -> Data? {
    guard mine.ancestry != nil, copy.ancestry != nil,
      let newest = mine.commonVersions(with: copy).first(where: { !$0.isKeptChange }),
      let data = heldData(newest.hash), let value = try? target.decode(data),
      let encoded = try? target.encode(base)
    else { return nil }
    return target.keepingUnknownMembers(encoded, [(data, value)])
  }

  /// The value of the version `hash`, if this device keeps it and it still decodes.
  private func held(_ hash: String) -> Value? {
    heldData(hash).flatMap { try? target.decode($0) }
  }

  /// The bytes of the version `hash`, if this device keeps them.
  private func heldData(_ hash: String) -> Data? {
    store.contents(ofVersion: hash, of: target.url, maximumSize: target.maximumFileSize)
  }
}
