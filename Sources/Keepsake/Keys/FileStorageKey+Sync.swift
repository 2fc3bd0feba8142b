import Foundation

// A file key in a synced folder (see "Devices" in the Data safety article): the few places the
// key's own code calls into `Sync/`. Outside synced folders every one of them does nothing but
// look up whether the folder is synced, so such files keep their exact bytes.

extension FileStorageKey {
  /// What the sync code needs of the key.
  var syncTarget: SyncTarget<Value> {
    // NB: the file with its links resolved, where the key reads, writes and keeps its copies.
    var target = SyncTarget(
      url: file, folderPath: folderPath, keyID: id, decode: decode, encode: encode,
      encodeWithAncestry: sync.encodeWithAncestry, merge: merge,
      maximumFileSize: maximumFileSize, options: sync.options)
    target.keepingUnknownMembers = { [self] data, reads in
      keepingUnknownMembers(data, of: reads)
    }
    target.mergeDocuments = { [self] base, ours, theirs in
      mergedDocument(base: base, ours: ours, theirs: theirs)
    }
    target.mergeByField = { [self] base, ours, theirs, baseIsCommon in
      mergeByField(base: base, ours: ours, theirs: theirs, baseIsCommon: baseIsCommon)
    }
    target.applyKeptChange = { [self] data, value in
      guard let kept = try? UnsavedChange.decoder.decode(UnsavedChange.self, from: data),
        let merged = try? merging(kept, into: value)
      else { return nil }
      return merged.0
    }
    target.keptDeletions = { [self] data in
      guard let kept = try? UnsavedChange.decoder.decode(UnsavedChange.self, from: data) else {
        return nil
      }
      return deletions(of: kept)
    }
    target.removeKeptDeletions = { [self] deletions, value, line in
      removingDeletions(deletions, from: value, lackedBy: line)
    }
    return target
  }

  /// Whether the file is in a synced folder (see `SyncState.isSynced`), without making the
  /// target.
  private func isSynced(
    in context: StorageContext, data: Data?, engine: SyncEngine?? = nil
  ) -> Bool {
    sync.state.isSynced(
      folderPath: folderPath, carriesAncestry: sync.encodeWithAncestry != nil, in: context,
      data: data, engine: engine)
  }

  /// The same key with other sync settings: for tests and tools.
  func syncOptions(_ options: SyncOptions) -> FileStorageKey {
    var copy = self
    copy.sync.options = options
    return copy
  }

  /// The key has read `data`, the file's bytes: in a synced folder, it is the parent of the
  /// next save and a base this device keeps.
  ///
  /// NB: a reference that finds the file removed does not call this: its value was made on the
  /// version it knew, so a save of it into the name an engine emptied (Syncthing removes the
  /// file, then renames its new one in) descends from that version; when the rename goes over
  /// it, it is a save of this device the file does not include, and is merged back (see
  /// `SyncResolver`). A ``load(in:)`` that finds no file, and a reference that takes the
  /// removal in (its value the default), forget the version instead: a value made then is made
  /// on nothing, and merged back as that version's child it would delete all the version held.
  ///
  /// - Parameters:
  ///   - engine: The folder's engine when the caller looked it up already (see
  ///     ``syncMergeBeforeLoading(in:)``).
  ///   - madeOn: Whether the reference's value is made on `data` now (its own read). A take-in
  ///     of a kept change writes beside the value, on the sync queue, and the value takes the
  ///     file in later, as any outside change: until then a save into a name an engine emptied
  ///     must not descend from a version whose change its value lacks (merged back, it would
  ///     undo that change).
  func syncDidRead(
    _ data: Data, in context: StorageContext, engine: SyncEngine?? = nil, madeOn: Bool = true
  ) {
    let state = sync.state
    guard isSynced(in: context, data: data, engine: engine) else { return }
    let target = syncTarget
    let version = FileVersion(data, readsAncestry: target.carriesAncestry)
    if madeOn { state.setKnown(version) }
    target.store(in: context).recordLater(
      data, hash: version.hash, kind: .read, keeping: version.newestOfEachDevice, of: target.url)
  }

  /// The bytes a save writes: in a synced folder, with the ancestry of a version written over
  /// `parent`, the file's bytes just read, or else the version the key last read or wrote;
  /// `takingIn`: the kept change the value merged (see ``syncDidSeeKeptChange(_:into:in:)``),
  /// and what it deleted (see `Ancestry.Deletions`).
  func syncEncode(
    _ value: Value, over parent: Data? = nil,
    takingIn keptChange: (hash: String, change: UnsavedChange)? = nil, in context: StorageContext
  ) throws -> Data {
    // NB: the target (three closures) is made only in a synced folder.
    guard sync.encodeWithAncestry != nil, isSynced(in: context, data: parent) else {
      return try encode(value)
    }
    let target = syncTarget
    let known = parent.map { FileVersion($0, readsAncestry: true) } ?? sync.state.known
    let ancestry = Ancestry.child(
      of: known, writer: sync.state.device(target, in: context), takingIn: keptChange?.hash,
      deleting: keptChange.flatMap { deletions(of: $0.change) } ?? [])
    return try target.encode(value, ancestry: ancestry)
  }

  /// The key is about to take `data`, a change an older version of the app kept beside the
  /// file, into `stored`, the file's bytes: in a synced folder whose versions carry their
  /// ancestry, this device keeps it (a base it may need, see `SyncResolver+Base.swift`), and
  /// returns the hash that names it in the ancestry of the version that takes it in; else `nil`.
  func syncDidSeeKeptChange(
    _ data: Data, into stored: Data, in context: StorageContext
  ) -> String? {
    guard sync.encodeWithAncestry != nil, isSynced(in: context, data: stored) else { return nil }
    let hash = FileVersion.hash(of: data)
    let target = syncTarget
    // NB: recorded in the order changes are taken in, oldest first: the order a base that
    // needs several applies them in.
    target.store(in: context).recordLater(data, hash: hash, kind: .keptChange, of: target.url)
    return hash
  }

  /// The key wrote `data`: the parent of its next save, and a save this device keeps; only
  /// the latter when the value is not `madeOn` it (see ``syncDidRead(_:in:engine:madeOn:)``).
  func syncDidWrite(_ data: Data, in context: StorageContext, madeOn: Bool = true) {
    let state = sync.state
    guard isSynced(in: context, data: data) else { return }
    let target = syncTarget
    let version = FileVersion(data, readsAncestry: target.carriesAncestry)
    if madeOn { state.setKnown(version) }
    target.store(in: context).recordLater(
      data, hash: version.hash, kind: .wrote, keeping: version.newestOfEachDevice, of: target.url)
  }

  /// Before the first read, merges the copies already beside the file.
  ///
  /// Only in a folder an engine's marker names: the first value read then includes them (a
  /// command-line tool's one read, an app's first screen). It waits for the lock only briefly;
  /// what it cannot do here, the background scan does.
  ///
  /// - Returns: The engine of the file's folder, for the read that follows (a lookup of the
  ///   process's cache is a twentieth of a file key's creation).
  @discardableResult
  func syncMergeBeforeLoading(in context: StorageContext) -> SyncEngine? {
    let engine = SyncFolder.engine(containingPath: folderPath, in: context.fileSystem)
    guard engine != nil else { return nil }
    let target = syncTarget
    guard sync.state.isSynced(target, in: context, data: nil, engine: engine) else {
      return engine
    }
    SyncResolver(target: target, context: context, state: sync.state)
      .run(lockTimeout: .milliseconds(200), atLoad: true)
    return engine
  }

  /// Before the key takes in a changed file: in a synced folder, merges the copies beside it
  /// and the saves it dropped first, so that the value taken in (and shown) never lacks a save
  /// of this device that a copy still holds; returns whether the file may have changed.
  ///
  /// Runs under the file's lock when this reference holds it (a save, a transaction), else takes
  /// it briefly; what it cannot do now, the background scan does.
  func syncMergeBeforeReading(in context: StorageContext) -> Bool {
    guard case .synced = sync.state.mode else { return false }
    let target = syncTarget
    let outcome = SyncResolver(target: target, context: context, state: sync.state)
      .run(lockTimeout: .milliseconds(200), atLoad: false, holdingLock: sync.state.holdsLock)
    if outcome.busy || !outcome.waiting.isEmpty {
      sync.state.scheduleScan(target, in: context, after: .milliseconds(50))
    }
    return !outcome.merged.isEmpty || outcome.restoredSaves > 0
  }

  /// Whether `name` is a conflict copy Keepsake keeps beside the file `fileName`.
  static func isKeepsakeConflictCopy(_ name: String, of fileName: String) -> Bool {
    // NB: a byte search first: this runs for every name of every event in the folder.
    ConflictCopyName.contains(name, anyOf: MarkerBytes.conflict)
      && Quarantine.isCopy(named: name, of: fileName, marker: Quarantine.conflictMarker)
  }

  /// Whether `name` is a change a process kept beside the file `fileName` when its save was
  /// refused.
  static func isKeptChange(_ name: String, of fileName: String) -> Bool {
    ConflictCopyName.contains(name, anyOf: MarkerBytes.unsaved)
      && Quarantine.isCopy(named: name, of: fileName, marker: Quarantine.unsavedMarker)
  }

  /// Watches the file (`watch`, the key's own subscription) and the copies engines put beside
  /// it, and scans for them once now in the background.
  func syncSubscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let target = syncTarget
    let state = sync.state
    // NB: the name once, from the path's bytes: a URL's last component is costly on Linux, and
    // the matcher runs for every name of every event in the folder (each commit of another
    // process makes four).
    let fileName = FolderPath.lastComponent(of: filePath)
    let watched = context.fileSystem.watch(
      fileAt: filePath,
      entriesMatching: {
        target.isCopy($0) || Self.isKeepsakeConflictCopy($0, of: fileName)
          || Self.isKeptChange($0, of: fileName)
      },
      onEntries: { [self] in
        let names = (try? context.fileSystem.contentsOfDirectory(at: target.folder)) ?? []
        // A change another process could not save (an older version's, on this device or
        // another) is merged by the first process that can read the file: this one, now. Its
        // write is a change of the file like any, which the file's watch reports.
        if names.contains(where: {
          Self.isKeptChange($0, of: fileName) && !state.isOwnKeptChange($0)
        }) {
          state.scheduleTakeIn { takeInKeptChanges(in: context, othersOnly: true) }
        }
        // Every writer is told: a conflict copy another process kept beside the file (of a
        // version it could not merge, this process's perhaps) reaches this process's app too.
        for name in names where Self.isKeepsakeConflictCopy(name, of: fileName) {
          let copy = target.folder.appendingPathComponent(name)
          guard context.fileSystem.belongsWithStore(copy, store: target.url) else { continue }
          state.reportOnce(
            SharedConflict(
              keyID: target.keyID, url: target.url, resolution: .keptBoth(copy: copy),
              keptByAnotherProcess: true),
            about: name)
        }
        // NB: a folder is synced only from evidence: an event among its entries (its own
        // creation, say) is not one; a conflict copy of the file there is.
        guard
          let copy = names.first(where: target.isCopy),
          context.fileSystem.belongsWithStore(
            target.folder.appendingPathComponent(copy), store: target.url)
        else { return }
        state.markSynced(by: ConflictCopyName.engine(ofCopy: copy, of: fileName))
        state.scheduleScan(target, in: context, after: .milliseconds(50))
      },
      onChange: {
        onChange()
        state.fileChanged(target, in: context)
      })
    // NB: a file known to be outside synced folders is not scanned now (a copy appearing later
    // marks it synced); one not decided yet is, in the background.
    if state.mode != .notSynced { state.scheduleScan(target, in: context) }
    return StorageSubscription(
      onCancel: {
        state.cancel()
        watched?.cancel()
      },
      failure: { watched?.failure })
  }

  /// Merges the copies beside the file now, on the calling thread: for tests of the resolver.
  ///
  /// - Returns: The names of the copies merged (or found already in the file) and removed.
  @discardableResult
  func mergeConflictCopies(in context: StorageContext) -> [String] {
    let target = syncTarget
    _ = sync.state.isSynced(target, in: context, data: nil)
    return SyncResolver(target: target, context: context, state: sync.state)
      .run(lockTimeout: .seconds(5), atLoad: false).merged
  }
}

extension FileStorageKey {
  func reportSyncConflicts(
    fallback: Value, timing: ReportTiming = .live,
    to report: @escaping @Sendable (SharedConflict) -> Void
  ) {
    sync.state.attach(fallback: fallback, timing: timing, report: report)
  }
}

/// The markers of Keepsake's own copies, as bytes for ``ConflictCopyName/contains(_:anyOf:)``.
private enum MarkerBytes {
  static let conflict = [Array(Quarantine.conflictMarker.utf8)]
  static let unsaved = [Array(Quarantine.unsavedMarker.utf8)]
}
