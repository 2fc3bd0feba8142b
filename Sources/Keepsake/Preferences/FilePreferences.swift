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
///   replacing it removes it first): a write meanwhile writes the whole suite it knew, never this
///   process's changes alone over an empty one;
/// - writes in the background: ``set(_:forKey:)`` never does file I/O on the caller's thread.
final class FilePreferences: PreferencesStore {
  /// The suite's file.
  let url: URL

  private let state = Mutex(State())
  private let queue: DispatchQueue
  private let fileSystem: any FileSystem
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
  /// The keys keep their values meanwhile, and a write writes every key known. Syncthing's
  /// replace removes the file and renames the new one in microseconds later; a script's `rm`
  /// then `cp` takes a process start, and its `cp` fails if a write created the file between.
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
    if let error = queue.sync(execute: { writePending() }) { throw error }
  }

  func flush(forKey key: String) throws {
    let error = queue.sync { () -> (any Error)? in
      let failure = writePending()
      // NB: a change another write saved since its own failed is durable, whatever failed since.
      return state.withLock { $0.dirty.contains(key) ? failure ?? $0.lastError : nil }
    }
    if let error { throw error }
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
      let merged = try withFileLock { () throws -> Suite in
        // NB: in place of exactly the file read, as a file key's save: a program that ignores
        // the lock (an editor, a script, a sync engine) and replaces the file meanwhile is
        // never written over; its file is read and merged again, a few times at most.
        var races = 0
        while true {
          refused = nil
          let identity = try fileSystem.identity(of: url)
          var merged = try readFile() ?? suiteInPlaceOfRemoved(values)
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
      adopt(merged)
      let kept = changes.filter { merged.unreadable[$0] != nil }
      // NB: a key whose earlier write failed showed it; its value did not change now, but its
      // reference is told, asks again and clears the error.
      let written = state.withLock { state -> [@Sendable () -> Void] in
        state.dirty.formUnion(kept)
        state.lastError = refused
        state.retriesOnChange = false
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
      guard state.retriesOnChange, !state.writeScheduled else { return [] }
      state.retriesOnChange = false
      return state.dirty
    }
    guard !keys.isEmpty else { return }
    _ = writePending()
  }

  /// Waits for the reads and writes already asked for: for tests.
  func waitUntilIdle() { queue.sync {} }

  /// Re-reads the suite, taking other processes' values for keys this process has not changed;
  /// a suite found removed is taken in as such once `removalGrace` is over (`graceIsOver`).
  private func reloadFromDisk(graceIsOver: Bool = false) -> (any Error)? {
    do {
      guard let suite = try readFile() else {
        let graceIsOver = graceIsOver || removalGrace <= .zero
        switch state.withLock({ $0.removalFound(graceIsOver: graceIsOver) }) {
        case .takenIn: adopt(Suite())
        case .graceStarts:
          queue.asyncAfter(deadline: .now() + removalGrace.timeInterval) { [weak self] in
            self?.endRemovalGrace()
          }
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

  /// Reads the suite again at the end of a removal's grace: still gone, its removal is taken
  /// in, and a change whose write failed meanwhile is written (into an empty suite).
  private func endRemovalGrace() {
    guard state.withLock({ $0.removalNoticed }) else { return }
    guard reloadFromDisk(graceIsOver: true) == nil else { return }
    retryFailedWrite()
  }

  /// What a write puts in place of a suite it found removed: during the grace, every key known
  /// (`values`, and the values this version cannot read, as they were); once the removal is
  /// taken in, nothing but the changes.
  private func suiteInPlaceOfRemoved(_ values: [String: PreferenceValue]) -> Suite {
    state.withLock { state in
      guard state.knowsFile else { return Suite() }
      return Suite(values: values, unreadable: state.unreadableValues)
    }
  }

  /// Whether `error` says a suite file is there but cannot be read.
  private static func isUnreadableData(_ error: any Error) -> Bool {
    if error is PreferencesError { return true }
    guard let error = error as? FileSystemError else { return false }
    switch error.reason {
    case .notARegularFile, .tooLarge, .linkLoop, .permissionDenied, .ioError, .notDownloaded:
      return true
    default:
      return false
    }
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

  private func readFile() throws -> Suite? {
    guard let data = try fileSystem.contents(of: url, maximumSize: maximumSize) else { return nil }
    // NB: a suite file is decoded by Keepsake's own types only (`PreferenceValue` and the
    // codec), whose messages name types and keys but never a stored value, so their detail can
    // be part of the description.
    let members: [String: JSONValue]
    do {
      guard case .object(let object) = try JSONValue(reading: data) else {
        throw PreferencesError.unreadable(path: url.path, reason: "it is not a JSON object")
      }
      members = object
    } catch let error as PreferencesError {
      throw error
    } catch {
      throw PreferencesError.unreadable(
        path: url.path, reason: ErrorMessage.reason(error, includingDetail: true))
    }
    var suite = Suite()
    for (key, member) in members {
      do {
        // NB: inside an object of its key, so an error's path names the key, as when the
        // suite was decoded whole.
        let one = JSONValue.object([key: member]).jsonData()
        suite.values[key] = try JSONCoding.decode([String: PreferenceValue].self, from: one)[key]
      } catch {
        let reason = ErrorMessage.reason(error, includingDetail: true)
        suite.unreadable[key] = (
          member, PreferencesError.unreadableValue(path: url.path, key: key, reason: reason)
        )
      }
    }
    return suite
  }

  /// The suite's bytes: pretty printed with sorted keys, for people who open it, and with the
  /// values this version cannot read as they were.
  private func encode(_ suite: Suite) throws -> Data {
    // NB: Foundation's encoder, not Keepsake's: the preferences file is written pretty printed,
    // which Keepsake's compact encoder does not do; it is small, so the faster codec would save
    // little. It is read through `JSONCoding`.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let data = try encoder.encode(suite.values)
    guard !suite.unreadable.isEmpty else { return data }
    guard case .object(var members) = try JSONValue(reading: data) else { return data }
    for (key, unreadable) in suite.unreadable { members[key] = unreadable.stored }
    return JSONValue.object(members).jsonData(prettyPrinted: true)
  }

  private func withFileLock<T>(_ body: () throws -> T) throws -> T {
    let lock = try fileSystem.lockExclusively(url)
    defer { lock.release() }
    return try body()
  }
}
