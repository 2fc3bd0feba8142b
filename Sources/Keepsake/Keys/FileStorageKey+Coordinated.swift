import Foundation

// A file key's part in the persistence protocol: its lock, its look at the file, its read, its
// write.

extension FileStorageKey: CoordinatedKey {
  func withOwnState() -> FileStorageKey {
    var copy = self
    copy.sync = sync.withOwnState()
    return copy
  }

  func lock(in context: StorageContext, timeout: Duration) throws -> FileLock {
    try checkPath()
    // NB: a folder removed since the key knew its file is not made again, not even for the
    // lock file.
    let lock = try context.fileSystem.lockExclusively(
      file, timeout: timeout, creatingFolder: !known.hasHadFile())
    return sync.state.holding(lock)
  }

  func storedChange(
    in context: StorageContext, rereading: Bool
  ) throws -> StoredChange<Value> {
    let fileSystem = context.fileSystem
    // An explicit load reads everything again: changes other processes kept beside the file
    // since this one opened it (an older version's, on this device or another) are merged in.
    if rereading { takeInKeptChanges(in: context) }
    var identity = try wrap { try checkedIdentity(fileSystem) }
    let last = known.get()
    // NB: a file this key looked at but did not take in yet (a change of ours was pending) and
    // that is gone now was removed: not "no file, as ever" (a replacement may be on its way).
    let removedUnseen = identity == nil && last == nil && known.lookedAtRemovedFile()
    known.saw(identity)
    if identity == last && !(rereading && identity != nil) && !removedUnseen {
      guard let identity, let digest = known.digestToCompare(identity) else { return .unchanged }
      // Whole-second times: an edit within the second of the last look keeps the identity, so
      // the bytes tell (read only on such file systems, and only within that second).
      let now = try wrap { try readFile(fileSystem) }
      if let (data, _) = now, KnownFile.digest(of: data) == digest {
        known.confirmLook()
        return .unchanged
      }
    }
    if syncMergeBeforeReading(in: context) {
      identity = try wrap { try checkedIdentity(fileSystem) }
      known.saw(identity)
    }
    guard identity != nil, let (data, read, decoded) = try readDecoded(fileSystem) else {
      known.saw(nil)
      return last == nil && !removedUnseen ? .unchanged : .deleted
    }
    let value = try decoded.get()
    syncDidRead(data, in: context)
    known.saw(read ?? identity)
    known.noteRead(data, value: value)
    known.noteLook(at: data, identity: read ?? identity)
    return .replaced(value, data: data, identity: read ?? identity)
  }

  func remember(_ identity: FileIdentity?) {
    known.set(identity)
    // The reference took in the file's removal: its value is the default now, made on nothing,
    // and its next save has no parent (see `syncDidRead(_:in:engine:)`).
    if identity == nil { sync.state.forgetKnown() }
  }

  func write(_ value: Value, in context: StorageContext) throws {
    try checkPath()
    let fileSystem = context.fileSystem
    let data = keepingUnknownMembers(try syncEncode(value, in: context))
    // A key never writes what it would refuse to read: the next launch would only get the
    // default and a load error, and could not even start over.
    guard data.count <= maximumFileSize else {
      throw FileSystemError(
        .write, path: file.path, reason: .valueTooLarge(size: data.count, limit: maximumFileSize))
    }
    let written: FileIdentity?
    do {
      // NB: in place of exactly what the last look found: anything else that lands there is
      // never written over, and the save reads it and merges (see `replaceAtomically`). A
      // folder removed since the key knew the file is not created again.
      written = try fileSystem.replaceAtomically(
        data, at: file, expecting: known.seen(), creatingFolder: !known.hasHadFile())
    } catch let error as FileSystemError
      where error.reason == .replacedMeanwhile || error.reason == .folderRemoved
    {
      throw error
    } catch {
      // NB: a write can fail after its rename (flushing the folder): the file then holds our
      // bytes, and must not be taken for another process's change by the next save.
      if let identity = try? fileSystem.identity(of: file),
        (try? fileSystem.contents(of: file, maximumSize: data.count)) == data
      {
        known.set(identity)
        syncDidWrite(data, in: context)
      }
      throw error
    }
    // NB: the identity of the file written, from the file itself where the file system tells
    // it: a program that put its own file at the name since (an editor ignoring the lock) is
    // then not taken for this write, and the next save reads and merges it.
    let identity = written ?? (try? fileSystem.identity(of: file))
    known.set(identity)
    known.noteLook(at: data, identity: identity)
    syncDidWrite(data, in: context)
  }
}

// A program that writes the file in place (`cp`, a script's `>`, many editors) truncates it,
// then writes it: a read in between finds it empty or cut short. Such a file changes again
// within moments, so a read whose bytes do not decode looks once more before it calls the file
// unreadable, and reads the version the program finishes.

extension FileStorageKey {
  /// How long a read waits, at most, for a file it cannot decode and that was changed just now
  /// to change again.
  ///
  /// NB: a program's truncate and its write are one system call apart: this is a wait for a
  /// process the scheduler put aside between the two, and a file nobody writes costs nothing
  /// (it was changed long ago) or this at most.
  static var inPlaceWriteWait: Duration { .milliseconds(50) }

  /// How many times a read reads again a file that keeps changing under it, before it reports
  /// the bytes it has.
  static var inPlaceWriteRereads: Int { 4 }

  /// Reads the file and decodes it; `nil` when there is no file.
  ///
  /// Bytes that do not decode are read again while the file is being written in place: when
  /// the file has changed since they were read, or changes within ``inPlaceWriteWait`` of a
  /// change made just now. A file that stays as it was read is reported as it is.
  ///
  /// - Returns: The bytes read, the identity of the version read, and their value or why they
  ///   cannot be read (a ``SharedLoadError``).
  /// - Throws: ``SharedLoadError`` when the file cannot be read at all.
  func readDecoded(
    _ fileSystem: any FileSystem
  ) throws -> (data: Data, identity: FileIdentity?, value: Result<Value, any Error>)? {
    var rereads = 0
    while true {
      guard let (data, identity) = try wrap({ try readFile(fileSystem) }) else { return nil }
      let value = Result { try decodeFile(data) }
      guard case .failure = value, rereads < Self.inPlaceWriteRereads, let identity,
        changesAgain(identity, in: fileSystem)
      else { return (data, identity, value) }
      rereads += 1
    }
  }

  /// Whether the file read as `identity` is another version now, or becomes one within
  /// ``inPlaceWriteWait`` when `identity` was made just now (a program may still be writing).
  private func changesAgain(_ identity: FileIdentity, in fileSystem: any FileSystem) -> Bool {
    var waited = Duration.zero
    var pause = Duration.milliseconds(2)
    while true {
      // NB: a file that cannot be looked at now is read again: the read says why.
      guard let now = try? fileSystem.identity(of: file), now == identity else { return true }
      guard waited < Self.inPlaceWriteWait, Self.wasJustChanged(identity) else { return false }
      Thread.sleep(forTimeInterval: pause.timeInterval)
      waited += pause
      pause = min(pause * 2, Self.inPlaceWriteWait - waited)
    }
  }

  /// Whether the version `identity` names was written, or its inode changed, within the last
  /// two seconds by the wall clock: what a program writing the file now leaves.
  ///
  /// NB: the change time too: `cp -p` puts an old modification time back once it has written.
  /// A disk that keeps no times (the in-memory one) is never waited for.
  private static func wasJustChanged(_ identity: FileIdentity) -> Bool {
    let latest = max(identity.modified, identity.changed)
    guard latest > 0 else { return false }
    let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    return abs(now - latest) < 2_000_000_000
  }
}
