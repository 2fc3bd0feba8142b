import Foundation

// A file key's part in the persistence protocol: its lock, its look at the file, its write.

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
