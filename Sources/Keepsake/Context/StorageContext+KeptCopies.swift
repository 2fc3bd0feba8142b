import Foundation

extension StorageContext {
  /// The copies Keepsake kept in `folder`, of every file there, sorted by name: each file's
  /// copies together, oldest first.
  ///
  /// Reads names only: no copy is opened, so a damaged or huge one lists like any other. But a
  /// change kept in the per-device state folder, because its file's folder was gone, is read
  /// for the path of its file, which its name cannot tell.
  ///
  /// - Throws: ``FileSystemError`` when there is no folder at `folder` (a mistyped path must not
  ///   read as "no copies"), or it cannot be listed.
  public func keptCopies(in folder: URL) throws -> [KeptCopy] {
    guard fileSystem.folderExists(folder) else {
      throw FileSystemError(.list, path: folder.path, reason: .posix(code: ENOENT))
    }
    let names = try fileSystem.contentsOfDirectory(at: folder)
    return names.sorted().compactMap { name in
      let url = folder.appendingPathComponent(name)
      guard let copy = KeptCopy(url: url) else { return nil }
      let away =
        copy.reason == .unsaved
        ? UnsavedChange.original(
          ofKeptAway: url, in: self,
          maximumSize: Self.unsavedReadLimit(FileSystemLimits.defaultMaximumFileSize))
        : nil
      return KeptCopy(
        url: url, reason: copy.reason,
        original: away ?? Quarantine.originalURL(of: url, among: names))
    }
  }

  /// The copies Keepsake kept of the file at `file`, sorted by name: oldest first for each
  /// reason.
  ///
  /// They are beside the file `file` names, as a key's are: through a symbolic link, beside the
  /// file it leads to, and named after it.
  ///
  /// - Throws: ``FileSystemError`` when the path cannot name a file (a loop of links), there
  ///   is no folder for the file, or it cannot be listed.
  public func keptCopies(of file: URL) throws -> [KeptCopy] {
    let file = try fileSystem.resolve(file)
    return try keptCopies(in: file.deletingLastPathComponent()).compactMap {
      KeptCopy(url: $0.url, of: file)
    }
  }

  /// Puts `copy` back in place of its file, and keeps the file it replaces as a copy in turn.
  ///
  /// The file is replaced the way a key saves it, under the file's lock and atomically, so an
  /// app that has the file open sees the restore as another process's change, and nothing is
  /// lost: the replaced file becomes a ``KeptCopy/Reason/kept`` copy before the new version goes
  /// in, and a program that puts yet another version in meanwhile makes the restore fail rather
  /// than replace that version. The copy itself is removed last.
  ///
  /// - Parameters:
  ///   - copy: The copy to put back; its ``KeptCopy/original`` is the file it replaces
  ///     (through a symbolic link, the file the link leads to, as a key saves it). For an
  ///     ``KeptCopy/Reason/unsaved`` copy, the file takes the change it keeps.
  ///   - maximumSize: The largest copy read, in bytes: by default what keys read, so a copy an
  ///     app would refuse to open is refused here too.
  /// - Returns: The copy of the file it replaced, or `nil` when there was no file.
  /// - Throws: ``FileSystemError``: with ``FileSystemError/Reason/tooLarge(size:limit:)`` for a
  ///   copy over `maximumSize`, ``FileSystemError/Reason/replacedMeanwhile`` when another
  ///   program changed the file during the restore, `ENOENT` when the copy is gone or its
  ///   original is not known; whatever the disk reports otherwise. `DecodingError` or
  ///   ``FormatError`` for an unsaved copy that holds no change. Nothing is lost in any case.
  @discardableResult
  public func restore(
    _ copy: KeptCopy, maximumSize: Int = FileSystemLimits.defaultMaximumFileSize
  ) throws -> KeptCopy? {
    let readLimit = copy.reason != .unsaved ? maximumSize : Self.unsavedReadLimit(maximumSize)
    guard var bytes = try fileSystem.contents(of: copy.url, maximumSize: readLimit) else {
      throw FileSystemError(.read, path: copy.url.path, reason: .posix(code: ENOENT))
    }
    var named = copy.original
    if copy.reason == .unsaved {
      // An unsaved change is kept with its base, in a file of its own: the file takes the
      // change, as the program would have written it; one kept away from its file, in the
      // state folder, goes back to the file it names.
      named =
        UnsavedChange.original(ofKeptAway: copy.url, in: self, maximumSize: readLimit) ?? named
      bytes = try UnsavedChange.decoder.decode(UnsavedChange.self, from: bytes).changeData
      guard bytes.count <= maximumSize else {
        throw FileSystemError(
          .read, path: copy.url.path,
          reason: .tooLarge(size: Int64(bytes.count), limit: maximumSize))
      }
    }
    guard let named else {
      throw FileSystemError(.read, path: copy.url.path, reason: .posix(code: ENOENT))
    }
    // NB: the file a link leads to is replaced, never the link, as a key's save does.
    let original = try fileSystem.resolve(named)
    let lock = try fileSystem.lockExclusively(original)
    defer { lock.release() }
    let before = try fileSystem.identity(of: original)
    var kept: URL?
    var taken = Set(try fileSystem.contentsOfDirectory(at: original.deletingLastPathComponent()))
      .union([copy.url.lastPathComponent])
    while kept == nil {
      let name = Quarantine.url(
        for: original, existingNames: taken, marker: Quarantine.keptMarker)
      do {
        if try fileSystem.copyItem(at: original, toNew: name) { kept = name } else { break }
      } catch let error as FileSystemError where error.reason == .alreadyExists {
        taken.insert(name.lastPathComponent)
      }
    }
    // The kept copy's link moves the file's change time; anything more is another version.
    let replaced = try fileSystem.identity(of: original)
    guard replaced == before || before?.isSameVersion(as: replaced) == true else {
      throw FileSystemError(.write, path: original.path, reason: .replacedMeanwhile)
    }
    try fileSystem.replaceAtomically(
      bytes, at: original, expecting: replaced, creatingFolder: false)
    try fileSystem.removeItem(at: copy.url)
    return kept.map { KeptCopy(url: $0, reason: .kept, original: original) }
  }

  /// The most an unsaved copy is read up to: it holds the change and its base, each up to the
  /// largest file.
  static func unsavedReadLimit(_ maximumSize: Int) -> Int {
    let (twice, overflow) = maximumSize.multipliedReportingOverflow(by: 2)
    return overflow || twice > .max - 4096 ? .max : twice + 4096
  }
}
