import Dispatch
import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keepsake's own preferences store: one JSON file per suite, the default on Linux.
///
/// Measured on Linux, swift-corelibs `UserDefaults` rewrites its plist in place with no lock, so
/// processes writing at once lose each other's keys. This store instead:
/// - writes atomically and durably (temporary file, fsync, rename, fsync of the folder);
/// - takes an exclusive `flock` on a lock file beside the suite, re-reads the file under it and
///   writes back only the keys this process changed, so two processes writing different keys
///   lose neither;
/// - never overwrites a suite file it cannot read (data-safety rule "A file Keepsake cannot read is
///   never overwritten"; see the Data safety article): writes fail with the read error and the file
///   is left as it is. A value it cannot read in a suite it can (a kind of value a newer version
///   of the app stores) is kept as it is in every write, and only its own key reports it;
/// - takes a suite file that was there and is gone as removed only after a grace (a program
///   replacing it removes it first): a write meanwhile waits for the new version, and merges into
///   it, never creating a suite of this process's changes alone;
/// - writes in the background: ``set(_:forKey:)`` never does file I/O on the caller's thread.
final class FilePreferences: PreferencesStore {
  /// The suite's file.
  let url: URL

  private let state = Mutex(State())
  private let queue: DispatchQueue
  let fileSystem: any FileSystem
  private let watch = Mutex<StorageSubscription?>(nil)

  /// Opens (without creating) the suite stored at `url`, reading its current values.
  convenience init(url: URL) {
    self.init(url: url, fileSystem: LocalFileSystem())
  }

  /// The largest suite file read, and so the largest one written: a suite saved past it could
  /// not be read back at the next launch, which would show every key as its default.
  let maximumSize: Int

  /// How long a suite file found removed may take to be put back before its removal is taken
  /// in.
  ///
  /// The keys keep their values meanwhile, and a write waits: merged into the version put
  /// back, or, the grace over, written into a new suite. Syncthing's replace removes the file
  /// and renames the new one in microseconds later; a script's `rm` then `cp` takes a process
  /// start, and its `cp` fails if a write created the file between.
  let removalGrace: Duration

  /// Opens the suite at `url` through `fileSystem`: a ``LocalFileSystem`` whose system calls
  /// are recorded, in tests of the write protocol.
  init(
    url: URL, fileSystem: any FileSystem,
    maximumSize: Int = FileSystemLimits.defaultMaximumFileSize,
    removalGrace: Duration = PersistenceMachine.replacementGrace
  ) {
    self.url = url
    self.maximumSize = maximumSize
    self.removalGrace = removalGrace
    self.fileSystem = fileSystem
    self.queue = DispatchQueue(label: "keepsake.preferences.\(url.lastPathComponent)")
    TemporaryFile.removeAbandoned(besides: url, in: fileSystem)
    _ = reloadFromDisk()
    let subscription = fileSystem.watch((try? fileSystem.resolve(url)) ?? url) { [weak self] in
      guard let self else { return }
      self.queue.async {
        guard self.reloadFromDisk() == nil else { return }
        self.retryFailedWrite()
      }
    }
    watch.withLock { $0 = subscription }
  }

  /// The file of a suite in the per-user configuration folder:
  /// `$XDG_CONFIG_HOME/keepsake/<suite>.json`, else `~/.config/keepsake/<suite>.json`.
  static func defaultURL(suiteName: String?) -> URL {
    let environment = ProcessInfo.processInfo.environment
    let base = UserFolders.configuration(environment: environment)
    let suite = suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    return base.appendingPathComponent("keepsake", isDirectory: true)
      .appendingPathComponent("\(fileName(ofSuite: suite)).json")
  }

  /// A suite's name as a file name in the suites' folder, and never a path: a name is a name
  /// (`"../x"` must not write outside the folder), and two names never share a file.
  static func fileName(ofSuite suite: String) -> String {
    var name = suite.replacingOccurrences(of: "%", with: "%25")
      .replacingOccurrences(of: "/", with: "%2F")
      .replacingOccurrences(of: "\u{0}", with: "%00")
    if name.hasPrefix(".") { name = "%2E" + name.dropFirst() }
    if name.isEmpty { name = "%" }
    return name
  }

  /// The error of the last failed read or write, if the suite could not be read or saved.
  var lastError: (any Error)? { state.withLock { $0.lastError } }

  var readError: (any Error)? { state.withLock { $0.readError } }

  func readError(forKey key: String) -> (any Error)? {
    state.withLock { $0.readError ?? $0.unreadableValues[key]?.error }
  }

  func value(forKey key: String) -> PreferenceValue? {
    state.withLock { $0.values[key] }
  }

  func set(_ value: PreferenceValue?, forKey key: String) {
    let schedule = state.withLock { state -> Bool in
      state.values[key] = value
      state.dirty.insert(key)
      defer { state.writeScheduled = true }
      return !state.writeScheduled
    }
    // Changes made in the same instant share one write.
    if schedule { queue.async { [self] in _ = writePending() } }
  }

  func observe(
    _ key: String, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    let id = state.withLock { $0.observers.add(key, onChange) }
    return StorageSubscription { [weak self] in self?.state.withLock { $0.observers.remove(id) } }
  }

  func flush() throws {
    let error = writingThroughRemoval { () -> (error: (any Error)?, waits: Bool) in
      (writePending(), state.withLock { $0.waitsForReplacement })
    }
    if let error { throw error }
  }

  func flush(forKey key: String) throws {
    let error = writingThroughRemoval { () -> (error: (any Error)?, waits: Bool) in
      let failure = writePending()
      return state.withLock { state in
        // NB: a change another write saved since its own failed is durable, whatever failed
        // since.
        guard state.dirty.contains(key) else { return (nil, false) }
        return (failure ?? state.lastError, state.waitsForReplacement)
      }
    }
    if let error { throw error }
  }

  /// Runs `write` on the store's queue until it holds nothing back for a removal's grace, so
  /// that a flush returns once its changes are on disk: merged into the version put back, or,
  /// the grace over, written into a new suite.
  private func writingThroughRemoval(
    _ write: () -> (error: (any Error)?, waits: Bool)
  ) -> (any Error)? {
    let givesUp = ContinuousClock.now + removalGrace * 2 + .seconds(1)
    while true {
      let outcome = queue.sync(execute: write)
      guard outcome.waits else { return outcome.error }
      if ContinuousClock.now > givesUp {
        // NB: the grace's end is on the queue; should it not come, the wait still ends.
        queue.sync { _ = reloadFromDisk(graceIsOver: true) }
      }
      Thread.sleep(forTimeInterval: 0.005)
    }
  }

  // MARK: - Disk

  /// Writes the keys changed by this process, merged into what is on disk under the lock.
  private func writePending() -> (any Error)? {
    let (changes, values) = state.withLock { state in
      state.writeScheduled = false
      defer { state.dirty = [] }
      return (state.dirty, state.values)
    }
    guard !changes.isEmpty else { return state.withLock { $0.lastError } }
    do {
      var refused: PreferencesError?
      let outcome = try withFileLock { () throws -> Suite? in
        // NB: in place of exactly the file read, as a file key's save: a program that ignores
        // the lock (an editor, a script, a sync engine) and replaces the file meanwhile is
        // never written over; its file is read and merged again, a few times at most.
        var races = 0
        while true {
          refused = nil
          // NB: the identity of the version read, so a read that waited for a program writing
          // the suite in place, and read its version, is written over as that version.
          let read = try readFile()
          let identity = read?.identity
          // The suite was there and is gone: a program replacing it has not put the new version
          // in yet, so the changes wait (in the lock, where the look cannot go stale).
          if read == nil, holdsBack(changes) { return nil }
          var merged = read?.suite ?? Suite()
          for key in changes {
            // A value this version cannot read is never written over (it is another version's).
            if let unreadable = merged.unreadable[key] {
              refused = unreadable.error
              continue
            }
            merged.values[key] = values[key]
          }
          let data = try encode(merged)
          guard data.count <= maximumSize else {
            throw FileSystemError(
              .write, path: url.path,
              reason: .valueTooLarge(size: data.count, limit: maximumSize))
          }
          do {
            try fileSystem.replaceAtomically(
              data, at: url, expecting: identity, creatingFolder: true)
            return merged
          } catch let error as FileSystemError
            where error.reason == .replacedMeanwhile && races < PersistenceMachine.raceLimit
          {
            races += 1
          }
        }
      }
      guard let merged = outcome else { return nil }
      adopt(merged)
      let kept = changes.filter { merged.unreadable[$0] != nil }
      // NB: a key whose earlier write failed showed it; its value did not change now, but its
      // reference is told, asks again and clears the error.
      let written = state.withLock { state -> [@Sendable () -> Void] in
        state.dirty.formUnion(kept)
        state.lastError = refused
        state.retriesOnChange = false
        state.waitsForReplacement = false
        state.knowsFile = true
        state.removalNoticed = false
        let saved = state.failedKeys.intersection(changes).subtracting(kept)
        state.failedKeys.subtract(saved)
        return state.observers.callbacks { saved.contains($0) }
      }
      for callback in written { callback() }
      return refused
    } catch {
      // Keep the changes pending so a later flush, or the file's next change, retries them.
      state.withLock { state in
        state.dirty.formUnion(changes)
        state.failedKeys.formUnion(changes)
        state.lastError = error
        state.retriesOnChange = true
        state.waitsForReplacement = false
      }
      return error
    }
  }

  /// Writes the pending keys again after a failed write, once the file changed and reads.
  ///
  /// A write fails when the suite cannot be read at that instant: damaged, or a program (`cp`
  /// over the file, an editor) is writing it in place. Its end is a change of the file, so the
  /// app's changes are saved then rather than at its next change, which may never come. A
  /// write refused for a value this version cannot read is not retried: it would fail again,
  /// and each of its writes would change the file.
  private func retryFailedWrite() {
    let keys = state.withLock { state -> Set<String> in
      guard state.retriesOnChange || state.waitsForReplacement, !state.writeScheduled else {
        return []
      }
      state.retriesOnChange = false
      return state.dirty
    }
    guard !keys.isEmpty else { return }
    _ = writePending()
  }

  /// Waits for the reads and writes already asked for: for tests.
  func waitUntilIdle() { queue.sync {} }

  /// Whether changes wait for a removed suite to be put back: for tests.
  var waitsForReplacement: Bool { state.withLock { $0.waitsForReplacement } }

  /// Re-reads the suite, taking other processes' values for keys this process has not changed;
  /// a suite found removed is taken in as such once `removalGrace` is over (`graceIsOver`).
  private func reloadFromDisk(graceIsOver: Bool = false) -> (any Error)? {
    do {
      guard let (suite, _) = try readFile() else {
        let graceIsOver = graceIsOver || removalGrace <= .zero
        switch state.withLock({ $0.removalFound(graceIsOver: graceIsOver) }) {
        case .takenIn: adopt(Suite())
        case .graceStarts: scheduleRemovalGraceEnd()
        case .graceRuns: break
        }
        return nil
      }
      state.withLock { state in
        state.knowsFile = true
        state.removalNoticed = false
      }
      adopt(suite)
      return nil
    } catch {
      state.withLock { state in
        state.lastError = error
        // Only a suite that is there and cannot be read protects its keys; a path where no
        // suite can be (a file in place of its folder) is a failure of the writes, not of data.
        if Self.isUnreadableData(error) { state.readError = error }
      }
      return error
    }
  }

  /// Whether a write waits, `changes` kept pending: the suite's file was there and is gone, and
  /// the removal's grace runs (a program replacing it has not put the new version in yet).
  private func holdsBack(_ changes: Set<String>) -> Bool {
    guard removalGrace > .zero, state.withLock({ $0.knowsFile }) else { return false }
    let removal = state.withLock { state -> State.Removal in
      state.dirty.formUnion(changes)
      state.waitsForReplacement = true
      return state.removalFound(graceIsOver: false)
    }
    if removal == .graceStarts { scheduleRemovalGraceEnd() }
    return true
  }

  private func scheduleRemovalGraceEnd() {
    queue.asyncAfter(deadline: .now() + removalGrace.timeInterval) { [weak self] in
      self?.endRemovalGrace()
    }
  }

  /// Reads the suite again at the end of a removal's grace: still gone, its removal is taken
  /// in, and the changes that waited, or whose write failed meanwhile, are written (into a new
  /// suite).
  private func endRemovalGrace() {
    guard state.withLock({ $0.removalNoticed }) else { return }
    guard reloadFromDisk(graceIsOver: true) == nil else { return }
    retryFailedWrite()
  }

  /// Takes in `disk`, the suite just read, for the keys this process has not changed, and
  /// tells the keys whose value or readability changed.
  private func adopt(_ disk: Suite) {
    let callbacks = state.withLock { state -> [@Sendable () -> Void] in
      // NB: a suite that reads again (repaired, or written whole by the program that was
      // writing it in place) tells every key: each reported the failed read as its load error,
      // and a change made meanwhile is saved only once its key reads again.
      let readsAgain = state.readError != nil
      state.readError = nil
      var changed: Set<String> = []
      for key in Set(disk.values.keys).union(state.values.keys) where !state.dirty.contains(key) {
        if state.values[key] != disk.values[key] {
          state.values[key] = disk.values[key]
          changed.insert(key)
        }
      }
      for key in Set(disk.unreadable.keys).symmetricDifference(state.unreadableValues.keys) {
        changed.insert(key)
      }
      state.unreadableValues = disk.unreadable
      return state.observers.callbacks { readsAgain || changed.contains($0) }
    }
    for callback in callbacks { callback() }
  }

  private func withFileLock<T>(_ body: () throws -> T) throws -> T {
    let lock = try fileSystem.lockExclusively(url)
    defer { lock.release() }
    return try body()
  }
}
