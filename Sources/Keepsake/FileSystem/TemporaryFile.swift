import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Names of the temporary files an atomic write creates beside its target, and their cleanup.
///
/// The name carries the writer's process id, so a process can tell its own (or a live
/// process's) temporary file from one left behind by a writer that was killed mid-write.
enum TemporaryFile {
  static let marker = ".keepsake-tmp-"
  /// The marker of a file a save swapped out and is putting back (another program's version):
  /// never removed as a temporary file, always kept by the next process that finds it.
  static let swappedOutMarker = ".keepsake-out-"

  /// The longest file name whose temporary files carry it whole: a longer one is shortened
  /// (see `FileName`) so every temporary name fits within the file system's limit.
  ///
  /// The rest of a temporary name is a dot, ``marker``, a process id and a random number of at
  /// most ten digits each, and a dash.
  static let nameBudget = FileSystemLimits.maximumNameLength - 1 - marker.utf8.count - 21

  /// What stands for `fileName` in its temporary files' names.
  static func stem(for fileName: String) -> String {
    FileName.fitting(fileName, within: nameBudget)
  }

  /// A fresh temporary name for `fileName`, hidden and unique to this process.
  static func name(for fileName: String) -> String {
    ".\(stem(for: fileName))\(marker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// A fresh name for a file swapped out of `fileName`'s place by a save (see
  /// ``swappedOutMarker``).
  static func swappedOutName(for fileName: String) -> String {
    ".\(stem(for: fileName))\(swappedOutMarker)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// Whether `name` is a file swapped out of `fileName`'s place by a save that did not live to
  /// put it back.
  static func isAbandonedSwappedOut(_ name: String, for fileName: String) -> Bool {
    isAbandoned(name, for: fileName, marker: swappedOutMarker)
  }

  /// Whether `name` is a temporary file of `fileName` whose writer is no longer running.
  static func isAbandoned(_ name: String, for fileName: String) -> Bool {
    isAbandoned(name, for: fileName, marker: marker)
  }

  private static func isAbandoned(_ name: String, for fileName: String, marker: String) -> Bool {
    let prefix = ".\(stem(for: fileName))\(marker)"
    guard name.hasPrefix(prefix) else { return false }
    let rest = name.dropFirst(prefix.count)
    guard let pidText = rest.split(separator: "-").first, let pid = Int32(pidText) else {
      return false
    }
    if pid == getpid() { return false }
    // `kill(pid, 0)` fails with ESRCH when no such process exists.
    return kill(pid, 0) != 0 && errno == ESRCH
  }

  /// Removes temporary files of `url`, and of its quarantine and conflict copies, abandoned by
  /// killed writers; failures are ignored because a leftover temporary file is harmless (it is
  /// never read as the data).
  static func removeAbandoned(besides url: URL, in fileSystem: any FileSystem) {
    let folder = url.deletingLastPathComponent()
    guard let names = try? fileSystem.contentsOfDirectory(at: folder) else { return }
    _ = remove(names.filter(isAbandoned), belongingTo: url, in: fileSystem)
  }

  /// The same for a key opened in `context`, listing each folder once per context.
  ///
  /// NB: a folder of ten thousand keys was listed once per key, most of a key's creation. A dead
  /// writer writes nothing more, so what one listing found abandoned stays so; a writer killed
  /// after it leaves a harmless file until the next launch.
  ///
  /// `path` is `url`'s path, which the key keeps (`URL.path` is costly on Linux).
  ///
  /// - Returns: What else was left beside the file for the key to take in: changes kept unsaved
  ///   by an earlier process (see ``Quarantine/unsavedMarker``) and files a save swapped out but
  ///   did not live to put back (see ``swappedOutMarker``); and the conflict copies kept beside
  ///   it, which the reference reports. Usually none.
  @discardableResult
  static func removeAbandoned(
    besides url: URL, path: String, in context: StorageContext
  ) -> (takeIn: [String], conflictCopies: [String]) {
    // NB: the folder's path by string: on Linux `deletingLastPathComponent()` standardizes and
    // resolves links with a system call per component, on every key's creation.
    let folderPath = FolderPath.parent(of: path) ?? path
    let fileSystem = context.fileSystem
    let found: [String]
    if let known = context.abandonedTemporaryFiles.withLock({ $0[folderPath] }) {
      found = known
    } else {
      // NB: listed outside the lock every key of the context takes here: a large or slow
      // folder must not hold up keys in other folders. Two keys listing one folder at once
      // keep the first listing.
      let listed = try? fileSystem.contentsOfDirectory(at: url.deletingLastPathComponent())
      let names = (listed ?? []).filter { isAbandoned($0) || isLeftBeside($0) }
      found = context.abandonedTemporaryFiles.withLock { known in
        if let earlier = known[folderPath] { return earlier }
        known[folderPath] = names
        return names
      }
    }
    guard !found.isEmpty else { return ([], []) }
    let fileName = url.lastPathComponent
    let leftovers = found.filter { name in
      Quarantine.isCopy(named: name, of: fileName, marker: Quarantine.unsavedMarker)
        || isAbandonedSwappedOut(name, for: fileName)
    }
    let removed = remove(found.filter(isAbandoned), belongingTo: url, in: fileSystem)
    context.abandonedTemporaryFiles.withLock { known in
      known[folderPath]?.removeAll { removed.contains($0) || leftovers.contains($0) }
    }
    let copies = Quarantine.copies(of: fileName, among: found, marker: conflictMarker)
    return (leftovers, copies)
  }

  private static var conflictMarker: String { Quarantine.conflictMarker }

  /// Whether `name` is a change kept unsaved, or a file swapped out by a save that did not live
  /// to put it back (never removed, always taken in by its key), or a conflict copy (reported).
  ///
  /// NB: one parse of the name: a folder of many keys lists every name here once, and a
  /// substring search on a `String` costs more than the parse.
  private static func isLeftBeside(_ name: String) -> Bool {
    if let marker = Quarantine.parse(name)?.marker {
      if marker == Quarantine.unsavedMarker || marker == conflictMarker { return true }
    }
    guard name.hasPrefix("."), let range = name.range(of: swappedOutMarker) else { return false }
    let target = String(name[name.index(after: name.startIndex)..<range.lowerBound])
    return isAbandonedSwappedOut(name, for: target)
  }

  /// Whether `name` is a temporary file whose writer is no longer running.
  private static func isAbandoned(_ name: String) -> Bool {
    guard let target = targetName(of: name) else { return false }
    return isAbandoned(name, for: target)
  }

  /// Removes those of `abandoned` that belong to `url`; returns the names it dealt with.
  private static func remove(
    _ abandoned: [String], belongingTo url: URL, in fileSystem: any FileSystem
  ) -> Set<String> {
    let folder = url.deletingLastPathComponent()
    let fileName = url.lastPathComponent
    var removed: Set<String> = []
    for name in abandoned {
      guard let target = targetName(of: name) else { continue }
      // NB: a copy's temporary file (a quarantine or conflict copy cut short) belongs to the
      // file too: nothing else would ever remove it. Copies' names are never shortened here:
      // they are made to fit `nameBudget`.
      let belongs = target == stem(for: fileName) || Quarantine.isCopy(named: target, of: fileName)
      guard belongs else { continue }
      try? fileSystem.removeItem(at: folder.appendingPathComponent(name))
      removed.insert(name)
    }
    return removed
  }

  /// The file a temporary file's name was made for, or `nil` when it is not one.
  static func targetName(of name: String) -> String? {
    guard name.hasPrefix("."), let range = name.range(of: marker) else { return nil }
    let target = name[name.index(after: name.startIndex)..<range.lowerBound]
    return target.isEmpty ? nil : String(target)
  }
}
