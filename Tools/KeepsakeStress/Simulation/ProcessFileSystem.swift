import Foundation
import Keepsake

/// The shared disk as one simulated process sees it.
///
/// Once the process is dead every operation is refused, as a dead process does nothing more,
/// and the locks it held were released (the kernel releases `flock` on death). Locks are asked
/// for without waiting: the simulation's one thread must never block. Every look at a file (its
/// identity or its bytes) is noted, so the checker can tell a save that replaced a version it
/// had examined from one that raced an outside writer it could not have seen.
struct ProcessFileSystem: FileSystem {
  let disk: SimulatedDisk
  let process: SimulatedProcess

  /// The process id in the names of temporary files a killed writer leaves: no such process
  /// exists (Linux's `pid_max` is at most 2^22), so a fresh key takes them for a dead writer's.
  static let deadWriterPID = 2_000_000_000

  private func refuseIfDead(_ operation: FileOperation, _ url: URL) throws {
    guard process.isAlive else {
      throw FileSystemError(operation, path: url.path, reason: .ioError)
    }
  }

  private func noteExamined(_ url: URL) {
    if let file = disk.file(at: SimulatedDisk.path(url)) {
      process.examined[file.rawValue] = disk.versions[file.rawValue]
      if disk.bytes(file) != nil { process.sawFile[file.rawValue] = true }
    }
  }

  func contents(of url: URL, maximumSize: Int) throws -> Data? {
    try refuseIfDead(.read, url)
    noteExamined(url)
    return try disk.memory.contents(of: url, maximumSize: maximumSize)
  }

  func identity(of url: URL) throws -> FileIdentity? {
    try refuseIfDead(.read, url)
    noteExamined(url)
    return try disk.identity(at: url)
  }

  /// The swap of names and the look at what came out, as one step (as the real file system
  /// does them): another program's rename that lands while the save runs, before the swap, is
  /// what the swap takes out, so it is refused.
  ///
  /// Returns the identity of the file written, as the real file system does from the file it
  /// holds open: one that another program renames in just after the swap is not it.
  func replaceAtomically(
    _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
  ) throws -> FileIdentity? {
    try refuseIfDead(.write, url)
    let file = disk.file(at: SimulatedDisk.path(url))
    if let file { disk.savingFile(file) }
    // NB: not noted as examined: what the check saw is not what the save was based on.
    let looks = process.simulation?.flaws.contains(.swapsWithoutLooking) != true
    guard try !looks || disk.identity(at: url) == expected else {
      throw FileSystemError(.write, path: url.path, reason: .replacedMeanwhile)
    }
    try writeAtomically(data, to: url)
    let written = try disk.identity(at: url)
    if let file {
      // The version written is known to its writer, as the one it holds open.
      process.examined[file.rawValue] = disk.versions[file.rawValue]
      disk.savedFile(file)
    }
    return written
  }

  func writeAtomically(_ data: Data, to url: URL) throws {
    try refuseIfDead(.write, url)
    let path = SimulatedDisk.path(url)
    if process.killsInNextWrite {
      // Dies between the temporary file and the rename: the temporary file stays, cut short.
      let name = url.lastPathComponent
      let temporary =
        "\(SimulatedFile.folder.path)/.\(name).keepsake-tmp-\(Self.deadWriterPID)-"
        + "\(process.number)"
      disk.writeUnseen(data.prefix(data.count / 2), at: temporary)
      process.simulation?.killInWrite(process)
      throw FileSystemError(.write, path: temporary, reason: .ioError)
    }
    // Another program's rename lands here, inside the save, when one waits to (a save that did
    // not look again is then written over it).
    if let file = disk.file(at: path) { disk.savingFile(file) }
    let before = try? disk.memory.identity(of: url)
    let basedOn = disk.file(at: path).flatMap { process.examined[$0.rawValue] }
    do {
      try disk.memory.writeAtomically(data, to: url)
    } catch {
      // NB: a write can fail after its rename (flushing the folder): the new bytes are there.
      if (try? disk.memory.identity(of: url)) != before {
        wrote(data, at: path, basedOn: basedOn, created: before == nil)
      }
      throw error
    }
    wrote(data, at: path, basedOn: basedOn, created: before == nil)
  }

  private func wrote(_ data: Data, at path: String, basedOn: Int?, created: Bool) {
    if let file = disk.file(at: path) {
      process.wroteFile = true
      let index = file.rawValue
      // NB: a write into a replacement's gap is judged by the write that filled it, the one
      // that found the name empty (a later write over that file is an ordinary save); and only
      // when it wrote a file again that its process had seen: one that never saw a file there
      // creates it, as any first save does.
      if created {
        disk.gapFillerAsked[index] =
          process.asked[index] > 0 || process.transactions[index] != nil
          || process.exit != nil || !process.sawFile[index]
      }
    }
    disk.replaceInode(at: path)
    if disk.file(at: path) == nil, let copy = KeptCopy(url: URL(fileURLWithPath: path)),
      let original = copy.original.flatMap({ disk.file(at: $0.path) })
    {
      if copy.reason == .unsaved {
        // NB: the change itself, out of the file that keeps it with its base.
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let change = (object?["change"] as? String).map { Data($0.utf8) } ?? Data()
        disk.facts.append(
          .copy(
            file: original.rawValue, path: path, bytes: change, writer: process.name,
            kind: .unsaved))
      } else {
        let kind: SimulationFact.CopyKind =
          copy.reason == .conflict ? .conflict : .quarantine
        disk.facts.append(
          .copy(
            file: original.rawValue, path: path, bytes: data, writer: process.name, kind: kind))
      }
    }
    disk.changed(path, by: .keepsake(process.name), basedOn: basedOn)
  }

  func removeItem(at url: URL) throws {
    try refuseIfDead(.remove, url)
    let path = SimulatedDisk.path(url)
    let existed = disk.memory.files[path] != nil
    try disk.memory.removeItem(at: url)
    guard existed else { return }
    disk.removeInode(at: path)
    let basedOn = disk.file(at: path).flatMap { process.examined[$0.rawValue] }
    disk.changed(path, by: .keepsake(process.name), basedOn: basedOn)
  }

  func contentsOfDirectory(at url: URL) throws -> [String] {
    try refuseIfDead(.list, url)
    return try disk.memory.contentsOfDirectory(at: url)
  }

  func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
    guard process.isAlive else { return nil }
    return disk.watch(SimulatedDisk.path(url), by: process, onChange: onChange)
  }

  func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
    try refuseIfDead(.lock, url)
    // NB: never a wait: a busy lock fails at once, and the machine asks again on the virtual
    // clock (the scheduler asks locks without waiting).
    let file = disk.file(at: SimulatedDisk.path(url))?.rawValue
    let held: FileLock
    do {
      held = try disk.memory.lockExclusively(url, timeout: .zero)
    } catch {
      process.wasRefusedLock = true
      if let file, process.refusedSince[file] == nil { process.refusedSince[file] = disk.now() }
      throw error
    }
    if let file { process.refusedSince[file] = nil }
    process.held.append(held)
    disk.tookLock(of: SimulatedDisk.path(url), held)
    return FileLock { held.release() }
  }
}
