import Foundation

/// The copies a file key keeps beside its file: quarantine copies of a damaged file (data-safety
/// rule "A damaged file is preserved before anything replaces it") and conflict copies of
/// another process's version (rule "Processes that share a file lose nothing"; see the Data
/// safety article).
extension FileStorageKey {
  /// Keeps `data`, the other side of a conflict, as a conflict copy beside the file.
  ///
  /// A copy with the same bytes as one kept already is not written again: that one is returned.
  /// Past ``Quarantine/conflictCopyLimit`` copies of the file, the oldest one and the newest ones
  /// stay and those in between are removed, and returned as pruned so the app is told.
  func keepConflictCopy(_ data: Data, in context: StorageContext) throws -> KeptConflictCopy {
    try checkPath()
    // NB: this reference's app hears of its own copy from the save; its watch, which may see
    // the copy appear before the save ends, must not tell it as another process's.
    let state = sync.state
    return try ConflictCopies.keep(data, besides: file, in: context.fileSystem) { name in
      state.noteOwnCopy(name)
    }
  }

  /// Makes a new copy of the file with `marker` in its name through `make`, under a name no
  /// other file has: when another process takes the name first, the next one is tried.
  ///
  /// - Returns: The copy, or `nil` when `make` found nothing to copy.
  func keepCopy(
    marker: String, in context: StorageContext, names: [String]? = nil,
    make: (URL) throws -> Bool
  ) throws -> URL? {
    var taken = Set(
      try names
        ?? context.fileSystem.contentsOfDirectory(
          at: file.deletingLastPathComponent()))
    // NB: bounded, so a file system that says every name is taken cannot hold the save forever.
    for _ in 0..<1000 {
      let copy = Quarantine.url(for: file, existingNames: taken, marker: marker)
      do {
        return try make(copy) ? copy : nil
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        // NB: the copy's own name was taken between the listing and the write (two processes
        // in one second); the file itself is never replaced, so trying the next name is safe.
        taken.insert(copy.lastPathComponent)
      }
    }
    throw FileSystemError(.write, path: file.path, reason: .alreadyExists)
  }
}

/// The conflict copies beside a file, kept the same way on every path (a process's, a sync
/// engine's overwritten save): a copy with the bytes of one kept already is never written again,
/// and their number stays bounded.
enum ConflictCopies {
  /// Keeps `data`, the other side of a conflict, as a conflict copy beside `file`.
  ///
  /// A copy with the same bytes as one kept already is not written again: that one is returned.
  /// Past ``Quarantine/conflictCopyLimit`` copies of the file, the oldest one and the newest ones
  /// stay and those in between are removed, and returned as pruned so the app is told.
  ///
  /// `making` is told each name before a copy is made under it.
  static func keep(
    _ data: Data, besides file: URL, in fileSystem: any FileSystem,
    making: (String) -> Void = { _ in }
  ) throws -> KeptConflictCopy {
    let folder = file.deletingLastPathComponent()
    var names = try fileSystem.contentsOfDirectory(at: folder)
    // NB: only the store owner's own copies count, and are pruned: one another user planted
    // (or a link) never pushes a real copy out.
    let earlier = Quarantine.copies(
      of: file.lastPathComponent, among: names, marker: Quarantine.conflictMarker
    ).filter { fileSystem.belongsWithStore(folder.appendingPathComponent($0), store: file) }
    // Newest first: a value in conflict again and again mostly meets the same other version.
    for name in earlier.reversed() {
      let copy = folder.appendingPathComponent(name)
      guard (try? fileSystem.identity(of: copy))?.size == Int64(data.count),
        (try? fileSystem.contents(of: copy, maximumSize: data.count)) == data
      else { continue }
      return KeptConflictCopy(url: copy, pruned: [])
    }
    var made: URL?
    // NB: bounded, so a file system that says every name is taken cannot hold the save forever.
    for _ in 0..<1000 where made == nil {
      let copy = Quarantine.url(
        for: file, existingNames: Set(names), marker: Quarantine.conflictMarker)
      do {
        making(copy.lastPathComponent)
        try fileSystem.createAtomically(data, at: copy)
        made = copy
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        // Another process took the name between the listing and the write.
        names.append(copy.lastPathComponent)
      }
    }
    guard let made else {
      throw FileSystemError(.write, path: file.path, reason: .alreadyExists)
    }
    // The new copy is durable before any old one goes.
    let all = earlier + [made.lastPathComponent]
    let excess = all.count - Quarantine.conflictCopyLimit
    guard excess > 0 else { return KeptConflictCopy(url: made, pruned: []) }
    var pruned: [URL] = []
    for name in all[1...excess] {
      let copy = folder.appendingPathComponent(name)
      if (try? fileSystem.removeItem(at: copy)) != nil { pruned.append(copy) }
    }
    return KeptConflictCopy(url: made, pruned: pruned)
  }
}

/// Where a conflict copy was kept, and the older copies removed to keep their number bounded.
struct KeptConflictCopy: Sendable {
  /// The copy with the other side's bytes: a new one, or one kept earlier with the same bytes.
  var url: URL
  /// Older conflict copies of the file removed to stay within ``Quarantine/conflictCopyLimit``.
  var pruned: [URL]
}
