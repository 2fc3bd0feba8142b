import Foundation

/// Merges the versions a sync engine left beside a file back into it: each conflict copy (and,
/// on Apple platforms, each unresolved iCloud Drive version), and any save of this device that
/// another device's version replaced without including it.
///
/// One scan, under the file's cross-process lock (the same `FileSystem.lockExclusively` every
/// save takes):
/// 1. read the file; if it is unreadable, stop: nothing is written over it (rule "A file
///    Keepsake cannot read is never overwritten");
/// 2. for each copy, oldest name first: read and decode it. An unreadable copy, or one from a
///    newer version of the app, is reported and left where it is, never removed. A copy the file
///    already includes is removed; otherwise the value's merge combines the file (ours) and the
///    copy (theirs) against their newest common version (see `SyncResolver+Base.swift`), the
///    result is written durably, and only then is the copy removed. A value that cannot merge
///    keeps both: the copy stays and is reported;
/// 3. for a file that carries its ancestry, each recent save of this device that the file does
///    not include, and that is not an older version the file came back to, is merged back the
///    same way.
///
/// The reference is not involved: it sees the merged file as any outside change, and merges a
/// pending change of its own with it as it would with another process's save. Conflicts reach
/// its ``Shared/lastConflict`` through `SyncState.report(_:)`.
struct SyncResolver<Value: Sendable> {
  let target: SyncTarget<Value>
  let context: StorageContext
  let state: SyncState
  /// The versions the engine keeps outside the folder (iCloud Drive's), and the coordination
  /// of the scan; a double in tests.
  var versions: any FileVersions = ICloudVersions.live

  /// What a scan did, for tests of the resolver on its own.
  struct Outcome: Equatable {
    /// Copies merged into the file (or found included in it) and removed.
    var merged: [String] = []
    /// Copies left where they are for good: they cannot merge or cannot be read.
    var kept: [String] = []
    /// Copies that wait for a device that holds their base, or for the reference's default.
    var waiting: [String] = []
    /// Saves of this device taken back into the file.
    var restoredSaves = 0
    /// The lock was busy or a write failed: worth trying again soon.
    var busy = false
    /// The file cannot be read: nothing is merged into it until it changes.
    var blocked = false
    /// Why the engine refused access to the file (iCloud Drive's file coordinator): nothing was
    /// read or merged; each version waiting is reported, and looked at again when the folder
    /// changes.
    var refused: String?

    var stopped: Bool { busy || blocked }
  }

  var fileSystem: any FileSystem { context.fileSystem }
  var store: BaseStore { target.store(in: context) }

  // MARK: - Scanning

  /// Scans in the background: waits for the lock a while, and schedules itself again when a
  /// copy waits for a base or the lock was busy.
  func scan() {
    let outcome = run(lockTimeout: .seconds(2), atLoad: false)
    // NB: a copy kept for good (it cannot merge, or cannot be read) is looked at again only when
    // the folder changes; one that waits for a base is retried until the wait is over.
    if outcome.busy {
      state.scheduleScan(target, in: context, after: .seconds(1))
    } else if !outcome.waiting.isEmpty {
      state.scheduleScan(target, in: context, after: retryDelay)
    }
  }

  /// How soon a copy that waits for a base is looked at again.
  private var retryDelay: Duration {
    min(max(target.options.baseWait / 4, .milliseconds(100)), .seconds(5))
  }

  /// One scan; at load (on the caller's thread, before the first read), it waits for the lock
  /// only briefly, and leaves to the background what needs a wait or the reference's default.
  ///
  /// `holdingLock`: the reference holds the file's lock already (a save or a transaction that
  /// is about to take a changed file in): the scan runs under it.
  @discardableResult
  func run(lockTimeout: Duration, atLoad: Bool, holdingLock: Bool = false) -> Outcome {
    var outcome = Outcome()
    // NB: a file outside synced folders costs no listing (keys in one folder list it once, for
    // leftovers: `TemporaryFile`); a copy appearing beside it later marks it synced first.
    guard state.isSynced(target, in: context, data: nil) else { return outcome }
    let names = (try? fileSystem.contentsOfDirectory(at: target.folder)) ?? []
    var others: [OtherVersion] = []
    for name in names.sorted() {
      guard ConflictCopyName.mightBeCopy(name),
        let engine = ConflictCopyName.engine(ofCopy: name, of: target.fileName)
      else { continue }
      let url = target.folder.appendingPathComponent(name)
      // A link, or a copy another user made, is never merged into the store.
      guard fileSystem.belongsWithStore(url, store: target.url) else { continue }
      state.markSynced(by: engine)
      others.append(
        OtherVersion(
          name: name, origin: .conflictCopy(url, engine: engine),
          read: { [fileSystem, target] in
            try fileSystem.contents(of: url, maximumSize: target.maximumFileSize)
          },
          discard: { [fileSystem] in try fileSystem.removeItem(at: url) }))
    }
    others += versions.others(of: target.url)
    // NB: at load too: an app that starts (or a command that runs) on a file that dropped one of
    // its saves must show that save before the person changes anything.
    let checksSaves = target.carriesAncestry
    guard !others.isEmpty || checksSaves else { return outcome }

    var lock: FileLock?
    if !holdingLock {
      do {
        lock = try fileSystem.lockExclusively(target.url, timeout: lockTimeout)
      } catch {
        outcome.busy = true
        return outcome
      }
    }
    defer { lock?.release() }
    do {
      try versions.coordinate(target.url) {
        guard var file = readFile() else {
          outcome.blocked = true
          return
        }
        for other in others {
          merge(other, into: &file, atLoad: atLoad, outcome: &outcome)
          if outcome.stopped { return }
        }
        if checksSaves { restoreOverwrittenSaves(into: &file, outcome: &outcome) }
      }
    } catch {
      refused(error, others: others, outcome: &outcome)
    }
    return outcome
  }

  /// The engine refused access to the file: nothing was read or written, and each version
  /// that waits is reported once, so the app can tell the person why it was not merged.
  private func refused(_ error: any Error, others: [OtherVersion], outcome: inout Outcome) {
    let reason =
      "the file coordinator refused access to the file (\(ErrorMessage.reason(error))), so "
      + "nothing was read or written; it is tried again when the folder changes."
    outcome.refused = ErrorMessage.reason(error)
    for other in others {
      state.reportOnce(
        conflict(.notMerged(reason: reason), other, base: .notNeeded), about: other.name)
      outcome.kept.append(other.name)
    }
  }

  // MARK: - The file

  /// The file as a scan holds it: its bytes and value, or nothing (no file yet), and the
  /// identity of the file they were read from, which a write of the scan replaces and nothing
  /// else.
  struct File {
    var data: Data?
    var value: Value?
    var identity: FileIdentity?
  }

  /// Reads and decodes the file; `nil` when it cannot be read (it is protected: the reference
  /// reports it).
  ///
  /// As a key reads it: a file a program is writing in place is read once it finishes (see
  /// `FileSystem+InPlaceWrites.swift`), and the write that follows goes in place of the version
  /// read, or is refused.
  private func readFile() -> File? {
    let read = try? fileSystem.contents(
      atPath: target.url.path, maximumSize: target.maximumFileSize
    ) { data in
      if data.isEmpty { throw FileContentError.empty }
      return try target.decode(data)
    }
    guard let read else {
      // No file any more, or one that cannot be read at all (nothing is merged into it).
      let identity: FileIdentity?
      do { identity = try fileSystem.identity(of: target.url) } catch { return nil }
      return identity == nil ? File(data: nil, value: nil, identity: nil) : nil
    }
    // A file that does not decode: nothing is merged into it.
    guard case .success(let value) = read.value else { return nil }
    return File(data: read.data, value: value, identity: read.identity)
  }

  // MARK: - One copy

  func merge(
    _ other: OtherVersion, into file: inout File, atLoad: Bool, outcome: inout Outcome
  ) {
    let copyData: Data
    do {
      guard let data = try other.read() else { return }  // gone meanwhile
      copyData = data
    } catch {
      keep(other, unreadable: ErrorMessage.reason(error), outcome: &outcome)
      return
    }
    let theirs: Value
    do {
      if copyData.isEmpty { throw FileContentError.empty }
      theirs = try target.decode(copyData)
    } catch {
      // A copy written by a newer version of the app is refused as the file would be (rule "A
      // version from the future is refused, not guessed"), and kept.
      keep(other, unreadable: ErrorMessage.reason(error), outcome: &outcome)
      return
    }
    // NB: a copy beside a file that is gone is left alone: it is the only data left, and the
    // file's removal may have been someone's choice.
    guard let fileData = file.data, let ours = file.value else {
      outcome.kept.append(other.name)
      return
    }
    let mine = FileVersion(fileData, readsAncestry: target.carriesAncestry)
    let copy = FileVersion(copyData, readsAncestry: target.carriesAncestry)
    if copyData == fileData || mine.includes(copy.hash) {
      // Already in the file: nothing of it can be lost by removing it.
      discard(other, outcome: &outcome)
      return
    }
    if copy.ancestry != nil, copy.includes(mine.hash) {
      // The copy descends from the file: the engine kept the older version under the name.
      guard write(copyData, over: &file, value: theirs) else {
        outcome.busy = true
        return
      }
      record(read: [fileData], merged: copyData, parents: [], plain: false)
      discard(other, outcome: &outcome)
      report(.merged(overlapping: []), other, base: .newestCommonVersion)
      return
    }
    guard let merge = target.merge else {
      // The rule "Processes that share a file lose nothing" for devices: both are kept, the copy
      // where the engine put it.
      if case .conflictCopy(let url, _) = other.origin {
        state.reportOnce(conflict(.keptBoth(copy: url), other, base: .notNeeded), about: other.name)
      }
      outcome.kept.append(other.name)
      return
    }
    guard let (base, kind) = findBase(mine, copy, for: other.name, atLoad: atLoad) else {
      outcome.waiting.append(other.name)
      return
    }
    let sides = removingOneSidedDeletions(mine, copy, ours: ours, theirs: theirs)
    // Field by field where the value merges so, as a save's merge: an element changed on both
    // sides keeps both sides' changes to different fields. Against a base that is not their
    // newest common version, an element only one side holds is kept and named: it may be one
    // the other side added and deleted since (a deletion would come back unannounced).
    var result: SharedMergeResult<Value>
    var keepsTheirs = false
    let byField = target.mergeByField(base, sides.ours, sides.theirs, kind == .newestCommonVersion)
    var guessed: [String] = []
    if case .merged(let value, let conflicts, let guesses) = byField {
      result = SharedMergeResult(value: value, conflicts: conflicts)
      keepsTheirs = !conflicts.isEmpty
      // NB: named in the report, with no copy: both sides' elements are in the file.
      guessed = guesses
    } else {
      result = merge.merge(base: base, ours: sides.ours, theirs: sides.theirs)
    }
    let ancestry = target.carriesAncestry ? Ancestry.merge(of: mine, and: copy) : nil
    let merged: Data
    do {
      // What the model does not read is merged three ways too, where the base's bytes are
      // here; else it is kept from both sides. A member it does not read changed on both
      // sides (a field of a newer version, which this one cannot see) is a conflict as any.
      let encoded = try target.encode(result.value, ancestry: ancestry)
      if let baseData = newestCommonData(mine, copy, base: base),
        let threeWay = target.mergeDocuments(baseData, fileData, copyData)
      {
        merged = target.keepingUnknownMembers(encoded, [(threeWay.0, threeWay.1)])
        // NB: nor where an element a kept change deleted was removed: the raw documents
        // still hold it, as the other line left it.
        let unknown = threeWay.2.filter { path in
          !result.conflicts.contains(path)
            && !sides.removed.contains { path == $0 || path.hasPrefix($0 + ".") }
        }
        result.conflicts += unknown
        keepsTheirs = keepsTheirs || !unknown.isEmpty
      } else {
        merged = target.keepingUnknownMembers(encoded, [(fileData, ours), (copyData, theirs)])
        // NB: with no base, a member both sides hold with different values cannot be told
        // apart from a change: the two orders of keeping them disagree, and theirs is kept.
        let swapped = target.keepingUnknownMembers(
          encoded, [(copyData, theirs), (fileData, ours)])
        keepsTheirs = keepsTheirs || swapped != merged
      }
    } catch {
      keep(other, unreadable: ErrorMessage.reason(error), outcome: &outcome)
      return
    }
    var keptTheirs: URL?
    if keepsTheirs {
      // A field changed on both devices to different values keeps ours in the file and theirs
      // in a conflict copy beside it, durably before the engine's copy goes.
      do {
        keptTheirs = try ConflictCopies.keep(
          copyData, besides: target.url, in: fileSystem, making: { state.noteOwnCopy($0) }
        ).url
      } catch {
        outcome.busy = true
        return
      }
    }
    guard write(merged, over: &file, value: result.value) else {
      outcome.busy = true
      return
    }
    record(
      read: [fileData, copyData], merged: merged,
      parents: ancestry == nil ? [mine.hash, copy.hash] : [], plain: ancestry == nil)
    discard(other, outcome: &outcome)
    state.stopWaiting(for: other.name)
    var conflict = conflict(.merged(overlapping: result.conflicts + guessed), other, base: kind)
    conflict.copy = keptTheirs
    state.report(conflict)
  }

  /// Writes the merged bytes durably (rule "Writes are atomic and durable") in place of the
  /// file read, and of nothing else.
  ///
  /// Another device's version the engine put in meanwhile, or an editor's save, stays, and is
  /// merged by the next scan. `false` when the write failed or found the file replaced, and then
  /// nothing is removed.
  private func write(_ data: Data, over file: inout File, value: Value) -> Bool {
    var identity = file.identity
    if data != file.data {
      do {
        let written = try fileSystem.replaceAtomically(
          data, at: target.url, expecting: file.identity, creatingFolder: true)
        identity = written ?? (try? fileSystem.identity(of: target.url))
      } catch {
        return false
      }
    }
    file = File(data: data, value: value, identity: identity)
    return true
  }

  /// Removes a copy whose content is in the file now; a copy that cannot be removed stays, and
  /// is found included next time.
  private func discard(_ other: OtherVersion, outcome: inout Outcome) {
    do {
      try other.discard()
      outcome.merged.append(other.name)
    } catch {
      outcome.kept.append(other.name)
    }
  }

  private func keep(_ other: OtherVersion, unreadable reason: String, outcome: inout Outcome) {
    state.reportOnce(
      conflict(.notMerged(reason: reason), other, base: .notNeeded), about: other.name)
    outcome.kept.append(other.name)
  }

  /// Keeps what the merge read and wrote as bases for later merges.
  private func record(read: [Data], merged: Data, parents: [String], plain: Bool) {
    let store = store
    for data in read {
      store.record(data, hash: FileVersion.hash(of: data), kind: .read, of: target.url)
    }
    let version = FileVersion(merged, readsAncestry: !plain)
    store.record(
      merged, hash: version.hash, kind: .merged, parents: parents,
      keeping: version.newestOfEachDevice, of: target.url)
  }

  func conflict(
    _ resolution: SharedConflict.Resolution, _ other: OtherVersion, base: SyncedVersion.MergeBase
  ) -> SharedConflict {
    SharedConflict(
      keyID: target.keyID, url: target.url, resolution: resolution,
      otherDevice: SyncedVersion(origin: other.origin, base: base))
  }

  private func report(
    _ resolution: SharedConflict.Resolution, _ other: OtherVersion, base: SyncedVersion.MergeBase
  ) {
    state.report(conflict(resolution, other, base: base))
  }
}

/// One version to merge into a file: a sync engine's copy on disk, an iCloud Drive version, or a
/// save of this device from its store.
struct OtherVersion {
  /// The copy's name, or a name for the others: what a report once and a wait are kept by.
  var name: String
  var origin: SyncedVersion.Origin
  var read: () throws -> Data?
  /// Removes (or resolves) the copy once its content is durably in the file.
  var discard: () throws -> Void
}
