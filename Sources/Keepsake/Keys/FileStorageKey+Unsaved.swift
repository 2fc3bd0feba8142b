import Foundation

/// Changes a file could not take, kept durably the moment a save is refused: the file could not
/// be read (damaged, protected while the device is locked, or written by a newer version of the
/// app), or its folder was removed. A change kept only in memory would be gone when the process
/// ends, and iOS ends apps with SIGKILL, which no exit flush sees.
///
/// `notes.json`'s change is kept as `notes.unsaved-20261205T101500Z.json` beside it (in the
/// state folder when the folder is gone): the value as this program writes it, in its own
/// format version, with the base it was made on. The next process that opens the key and can
/// read the file (a newer version, or this one once the file is readable again) merges it into
/// the file three ways and removes it; `keepsake quarantined` lists it.
extension FileStorageKey {
  /// Keeps `value`, with `base` and the earlier kept values `steps`, as this reference's unsaved
  /// change, in a new copy that takes the place of its earlier one at `earlier`.
  ///
  /// A copy is never written again once made: a process merging it (another device's, through a
  /// sync engine) reads what it removes. The earlier copy goes once the new one, which holds all
  /// it held, is durable.
  ///
  /// - Returns: Where it is kept.
  func keepUnsavedChange(
    _ value: Value, base: Value?, steps: [Value], reason: String, superseding earlier: URL?,
    in context: StorageContext
  ) throws -> URL {
    try checkPath()
    let changeData = try encode(value)
    let baseData = try base.map(encode)
    var change = UnsavedChange(reason: reason, change: changeData, base: baseData)
    // NB: the steps, oldest first, go before the kept file outgrows what a process reads back:
    // the change, its base and the steps together no larger than the largest file.
    var stepData = try steps.map(encode)
    var total = changeData.count + (baseData?.count ?? 0) + stepData.reduce(0) { $0 + $1.count }
    while total > maximumFileSize, !stepData.isEmpty { total -= stepData.removeFirst().count }
    change.steps = stepData.map(UnsavedChange.Text.init)
    let fileSystem = context.fileSystem
    let folder = file.deletingLastPathComponent()
    let besideTheFile = fileSystem.folderExists(folder)
    // NB: away from its file, the copy's name tells only the file's name: the path is kept in
    // it, for a restore.
    if !besideTheFile { change.file = file.path }
    let data = try UnsavedChange.encoder.encode(change)
    let place =
      besideTheFile
      ? file : UnsavedChange.awayFolder(in: context).appendingPathComponent(file.lastPathComponent)
    var made: URL?
    for _ in 0..<1000 where made == nil {
      let names = Set(
        (try? fileSystem.contentsOfDirectory(at: place.deletingLastPathComponent())) ?? [])
      let url = Quarantine.url(for: place, existingNames: names, marker: Quarantine.unsavedMarker)
      do {
        // NB: noted first: the folder's watch may report it before this returns.
        sync.state.noteOwnKeptChange(url.lastPathComponent)
        try fileSystem.createAtomically(data, at: url)
        made = url
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        continue
      }
    }
    guard let made else {
      throw FileSystemError(.write, path: file.path, reason: .alreadyExists)
    }
    if let earlier, earlier != made { try? fileSystem.removeItem(at: earlier) }
    return made
  }

  /// Brings the changes an earlier process kept away from this file (its folder was gone then)
  /// back beside it, now that its folder is there, for ``takeIn(_:in:)``; returns their names.
  ///
  /// Without it such a change would wait in the state folder for a person to restore it. The
  /// state folder is listed once per context; a key whose file has no change there pays a
  /// lookup. A change stays where it is when the folder is still gone, or cannot be read.
  func bringBackChangesKeptAway(in context: StorageContext) -> [String] {
    var listed = context.changesKeptAway.withLock { $0 }
    if listed == nil {
      // NB: listed outside the lock every file key of the context takes here; two keys listing
      // at once keep the first listing.
      let folder = UnsavedChange.awayFolder(in: context)
      let names = ((try? context.fileSystem.contentsOfDirectory(at: folder)) ?? [])
        .filter { Quarantine.isCopy(named: $0) }
      listed = context.changesKeptAway.withLock { known in
        if known == nil { known = names }
        return known
      }
    }
    // NB: the file's name only when there is something to match: `URL.lastPathComponent` is
    // costly on Linux, and this runs at every file key's creation.
    guard let listed, !listed.isEmpty else { return [] }
    let fileName = file.lastPathComponent
    guard listed.contains(where: { Self.isKeptChange($0, of: fileName) }) else { return [] }
    let away = UnsavedChange.awayFolder(in: context)
    let fileSystem = context.fileSystem
    let folder = file.deletingLastPathComponent()
    guard fileSystem.folderExists(folder),
      var besides = try? Set(fileSystem.contentsOfDirectory(at: folder))
    else { return [] }
    let limit = StorageContext.unsavedReadLimit(maximumFileSize)
    var brought: [String] = []
    let names = (try? fileSystem.contentsOfDirectory(at: away)) ?? []
    for name in names.sorted() where Self.isKeptChange(name, of: fileName) {
      let url = away.appendingPathComponent(name)
      guard let kept = UnsavedChange.keptAway(at: url, in: context, maximumSize: limit),
        kept.file.path == filePath
      else { continue }
      // NB: under its own name where it is free, so its time still orders it among the changes
      // taken in; made beside the file before the one away goes: a crash between leaves the
      // change twice, which merges as once, never nowhere.
      let beside =
        besides.contains(name)
        ? Quarantine.url(for: file, existingNames: besides, marker: Quarantine.unsavedMarker)
        : folder.appendingPathComponent(name)
      guard (try? fileSystem.createAtomically(kept.data, at: beside)) != nil else { continue }
      besides.insert(beside.lastPathComponent)
      try? fileSystem.removeItem(at: url)
      brought.append(beside.lastPathComponent)
    }
    context.changesKeptAway.withLock { names in
      names?.removeAll { Self.isKeptChange($0, of: fileName) }
    }
    return brought
  }

  /// Takes in the changes kept beside the file now, listing its folder again (the listing
  /// ``subscribe(in:onChange:)`` made is kept for the whole process); but for the reference's
  /// own when `others`: it holds them still, and its own save merges them as it should (a
  /// change made on a file it never read keeps both versions).
  func takeInKeptChanges(in context: StorageContext, othersOnly others: Bool = false) {
    let folder = file.deletingLastPathComponent()
    guard let names = try? context.fileSystem.contentsOfDirectory(at: folder) else { return }
    let kept = names.filter {
      Self.isKeptChange($0, of: file.lastPathComponent)
        && !(others && sync.state.isOwnKeptChange($0))
    }
    if !kept.isEmpty { takeIn(kept, in: context) }
  }

  /// Takes in what earlier processes left beside the file (`names`, in its folder): merges
  /// their unsaved changes into it, and keeps a file a save swapped out but did not live to put
  /// back as a conflict copy (unless the file has its bytes); reports each to the reference.
  ///
  /// A change that cannot be read yet (a newer version's), or that meets a file this program
  /// cannot read, stays where it is for a process that can. A value that does not merge keeps
  /// the file's version, and the change as a conflict copy.
  func takeIn(_ names: [String], in context: StorageContext) {
    let fileSystem = context.fileSystem
    let folder = file.deletingLastPathComponent()
    guard let lock = try? lock(in: context, timeout: FileLock.defaultTimeout) else { return }
    defer { lock.release() }
    // NB: one report for all it took in, as `lastConflict` holds one: so at most one change
    // that needs a conflict copy is taken in per pass; another waits, kept, for the next load.
    var report: SharedConflict?
    // NB: oldest first, by the time in their names, not in the order the folder lists them: a
    // change that took the place of an earlier one of its writer (still here, its removal not
    // yet synced) holds it as a step, so the earlier one merged after it would undo it.
    for name in Quarantine.oldestFirst(names) {
      let url = folder.appendingPathComponent(name)
      let taken: (resolution: SharedConflict.Resolution, copy: URL?)?
      if Quarantine.isCopy(
        named: name, of: file.lastPathComponent, marker: Quarantine.unsavedMarker)
      {
        taken = try? adoptUnsavedChange(
          at: url, in: context, keepingCopy: !Self.keepsCopy(report))
      } else if !Self.keepsCopy(report) {
        taken = (try? keepSwappedOut(at: url, in: context)).map { ($0, nil) }
      } else {
        taken = nil
      }
      guard let taken else { continue }
      try? fileSystem.removeItem(at: url)
      if case .merged(overlapping: []) = taken.resolution,
        name.contains(TemporaryFile.swappedOutMarker)
      {
        continue
      }
      let conflict = SharedConflict(
        keyID: id, url: file, resolution: taken.resolution, copy: taken.copy)
      report = Self.combined(report, conflict)
    }
    if let report { sync.state.report(report) }
  }

  /// One report of what a pass took in: the parts each merge's policy decided, all of them (an
  /// app told of only the last change taken in would never hear that a deletion of an earlier
  /// one gave way to another writer's change), and the conflict copy, where one was kept.
  static func combined(_ report: SharedConflict?, _ next: SharedConflict) -> SharedConflict {
    guard let report else { return next }
    guard case .merged(let earlier) = report.resolution,
      case .merged(let later) = next.resolution
    else {
      return keepsCopy(report) ? report : next
    }
    var combined = report
    combined.resolution = .merged(overlapping: earlier + later.filter { !earlier.contains($0) })
    combined.copy = report.copy ?? next.copy
    return combined
  }

  /// Whether `conflict` kept another version in a copy the app must hear of.
  private static func keepsCopy(_ conflict: SharedConflict?) -> Bool {
    guard let conflict else { return false }
    if case .keptBoth = conflict.resolution { return true }
    return conflict.copy != nil
  }

  /// Keeps the file at `url`, swapped out of the file's place by a save that died before it put
  /// it back, as a conflict copy, unless the file has its bytes.
  private func keepSwappedOut(
    at url: URL, in context: StorageContext
  ) throws -> SharedConflict.Resolution {
    let fileSystem = context.fileSystem
    guard let data = try fileSystem.contents(of: url, maximumSize: maximumFileSize) else {
      return .merged(overlapping: [])
    }
    if try fileSystem.contents(of: file, maximumSize: maximumFileSize) == data {
      return .merged(overlapping: [])
    }
    return .keptBoth(copy: try keepConflictCopy(data, in: context).url)
  }

  /// Merges the unsaved change at `url` into the file, under the file's lock, as any writer's
  /// change merges: field by field where the value merges so, a field changed on both sides
  /// keeping the kept change's and the file's version as a conflict copy (returned), and the
  /// members of the file this model does not read kept.
  ///
  /// In a synced folder the version written lists the change it took in (see
  /// `Ancestry.keptChangeWriter`), and a file that lists it already has it: nothing is merged
  /// again.
  private func adoptUnsavedChange(
    at url: URL, in context: StorageContext, keepingCopy: Bool
  ) throws -> (resolution: SharedConflict.Resolution, copy: URL?) {
    let fileSystem = context.fileSystem
    let limit = StorageContext.unsavedReadLimit(maximumFileSize)
    guard let data = try fileSystem.contents(of: url, maximumSize: limit)
    else { throw FileSystemError(.read, path: url.path, reason: .posix(code: ENOENT)) }
    let kept = try UnsavedChange.decoder.decode(UnsavedChange.self, from: data)
    let identity = try fileSystem.identity(of: file)
    let stored = try fileSystem.contents(of: file, maximumSize: maximumFileSize)
    guard let stored else {
      // No file: it may be on its way back (a sync engine removes a file, then renames the new
      // one in). The change stays kept for a launch that finds the file.
      throw FileSystemError(.read, path: file.path, reason: .posix(code: ENOENT))
    }
    let theirs = try decode(stored)
    let keptHash = syncDidSeeKeptChange(data, into: stored, in: context)
    if let keptHash, FileVersion(stored, readsAncestry: true).includes(keptHash) {
      return (.merged(overlapping: []), nil)
    }
    // A value that does not merge keeps the change where it is: it is a copy of its own,
    // which `keepsake quarantined` lists and `keepsake restore` can put back.
    guard let (merged, conflicts) = try merging(kept, into: theirs) else {
      throw FileSystemError(.write, path: url.path, reason: .alreadyExists)
    }
    // Theirs is kept durably before ours replaces it, when a field changed on both sides.
    let keepsTheirs = mergesByField && !conflicts.isEmpty
    if keepsTheirs && !keepingCopy {
      throw FileSystemError(.write, path: url.path, reason: .alreadyExists)
    }
    let copy = keepsTheirs ? try keepConflictCopy(stored, in: context).url : nil
    // NB: what the file holds that this model does not read is written back, as every save
    // does, from the document just read: never through the reference's own last read, which
    // this may run beside (on the sync queue), and must not replace with an older document.
    // In a synced folder the file says it was written over the version read, as a save's
    // does, so other devices merge it from a known base.
    syncDidRead(stored, in: context, madeOn: false)
    let written = keepingUnknownMembers(
      try syncEncode(
        merged, over: stored, takingIn: keptHash.map { ($0, kept) }, in: context),
      of: [(stored, theirs)])
    try fileSystem.replaceAtomically(
      written, at: file, expecting: identity, creatingFolder: false)
    syncDidWrite(written, in: context, madeOn: false)
    return (.merged(overlapping: conflicts), copy)
  }

  /// `value` with the kept change merged into it, and the parts changed on both sides; `nil`
  /// when the value does not merge (the change is then kept as it is).
  ///
  /// Step by step: each earlier kept value, then the change, merged over what the steps before
  /// made, each against the one before it. Where another device merged an earlier step already,
  /// that step changes nothing, and what the later ones undid of it (an element deleted) is
  /// still a change.
  ///
  /// - Throws: What decoding the change throws (a newer version's, say).
  func merging(_ kept: UnsavedChange, into value: Value) throws -> (Value, [String])? {
    let ours = try decode(kept.changeData)
    guard let base = try kept.baseData.map(decode) else { return nil }
    // NB: a step that does not read (someone edited the kept file) is left out: the change
    // holds all it held, and merges against the step before, as with no steps.
    let steps = (kept.steps ?? []).compactMap { $0.bytes.flatMap { try? decode($0) } }
    var merged = value
    var conflicts: [String] = []
    var stepBase = base
    for step in steps + [ours] {
      let stepConflicts: [String]
      switch mergeByField(base: stepBase, ours: step, theirs: merged) {
      case .merged(let value, let fieldConflicts, _):
        (merged, stepConflicts) = (value, fieldConflicts)
      case .keepBoth:
        return nil
      case .notApplicable:
        guard let merge else { return nil }
        let result = merge.merge(base: stepBase, ours: step, theirs: merged)
        (merged, stepConflicts) = (result.value, result.conflicts)
      }
      conflicts += stepConflicts.filter { !conflicts.contains($0) }
      stepBase = step
    }
    return (merged, conflicts)
  }
}

extension FileStorageKey {
  /// What the kept change deleted, a tree per step that deleted something (see
  /// `FieldMerge.deletions(from:to:)`), each version as this model encodes it, as the field
  /// merge compares them: another writer's formatting or an older format version must not look
  /// like a change; `nil` when the change does not read.
  func deletions(of kept: UnsavedChange) -> [JSONValue]? {
    guard let base = try? kept.baseData.map(decode), let change = try? decode(kept.changeData)
    else { return nil }
    // NB: a step that does not read is left out, as the take-in leaves it out.
    let steps = (kept.steps ?? []).compactMap { $0.bytes.flatMap { try? decode($0) } }
    let chain = ([base] + steps + [change]).compactMap(document)
    guard chain.count == steps.count + 2 else { return nil }
    return zip(chain, chain.dropFirst()).compactMap { FieldMerge.deletions(from: $0, to: $1) }
  }

  /// `value` without the elements a kept change deleted (`deletions`, see ``deletions(of:)``)
  /// that it still holds unchanged and `line`, a version that took the change in, lacks (see
  /// `FieldMerge.removingDeletions(from:to:in:lackedBy:removed:)`), and the places of those
  /// removed (in the content, as a merge names them); `nil` when a value does not encode.
  ///
  /// For a version whose line did not take the change in, before it merges with `line`.
  /// Elements are told apart as a merge by identity tells them (arrays of objects by `id`),
  /// whichever merge the key's value takes.
  func removingDeletions(
    _ deletions: [JSONValue], from value: Value, lackedBy line: Value
  ) -> (Value, removed: [String])? {
    guard var result = document(value), let lineDocument = document(line) else { return nil }
    var removed: [String] = []
    for tree in deletions {
      result = FieldMerge.removing(tree, in: result, lackedBy: lineDocument, removed: &removed)
    }
    // A result that does not decode is never merged.
    guard !removed.isEmpty, let value = try? decode(result.jsonData()) else { return (value, []) }
    let inContent = { (path: String) in
      path.hasPrefix("content.") ? String(path.dropFirst("content.".count)) : path
    }
    return (value, removed.map(inContent))
  }

  /// `value` as this model encodes it, as a document.
  private func document(_ value: Value) -> JSONValue? {
    try? JSONValue(parsing: try encode(value))
  }
}
