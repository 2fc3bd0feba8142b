// The two runs `.ci/trace` measures: a save of a `withLock` on a file key, and an outside change,
// each alone between a reset of the coverage counters and their writing. They exist only in the
// coverage build that script makes (`-DKEEPSAKE_TRACE`): the counters' functions are linked only
// there, and a count is only true when nothing else runs meanwhile.
#if KEEPSAKE_TRACE
  import Foundation
  import KeepsakeTesting
  import Observation
  import Synchronization
  import Testing

  @testable import Keepsake

  #if canImport(Glibc)
    import Glibc
  #endif

  @_silgen_name("__llvm_profile_reset_counters") private func resetCounters()
  @_silgen_name("__llvm_profile_write_file") private func writeCounters() -> Int32
  @_silgen_name("__llvm_profile_set_filename")
  private func setCountersFile(_ name: UnsafePointer<CChar>)

  /// Counts what `body` runs: the counters are zeroed before it and written after it, to the file
  /// `LLVM_PROFILE_FILE` names, and nothing the test does afterwards is counted.
  private func counting(_ body: () async -> Void) async {
    resetCounters()
    await body()
    #expect(writeCounters() == 0, "the counters were written")
    setCountersFile("/dev/null")
  }

  @Suite("Traces .ci/trace counts", .serialized)
  struct PersistenceTraceTests {
    @Test("The save of a withLock on a file key, after the file was read")
    func save() async throws {
      let disk = try RealDisk()
      let url = disk.file("notes.json")
      try Data("[1]".utf8).write(to: url)
      // NB: without a watch, this process's own watch cannot see the save and start the reload
      // the article counts apart, at a moment no run controls.
      let context = StorageContext.inMemory(
        name: "trace", fileSystem: UnwatchedDisk(), clock: disk.clock)
      let notes = disk.shared(.fileStorage(url), in: context, default: [Int]())
      try await notes.load()

      await counting {
        notes.withLock { $0.append(2) }
        await disk.clock.advance(by: .seconds(5))
      }
      #expect(try Data(contentsOf: url) == Data("[1,2]".utf8), "the run saved")
    }

    @Test("A change another program made, taken in with nothing pending")
    func outsideChange() async throws {
      let disk = try RealDisk()
      let url = disk.file("notes.json")
      try Data("[1]".utf8).write(to: url)
      let notes = disk.shared(.fileStorage(url), in: disk.process(), default: [Int]())
      try await notes.load()
      // NB: written in another folder first, so the only event the watched folder sees while
      // counting is the rename.
      let elsewhere = try TemporaryFolder()
      let theirs = elsewhere.file("theirs.json")
      try Data("[7]".utf8).write(to: theirs)
      let told = Mutex(false)
      withObservationTracking {
        _ = notes.wrappedValue
      } onChange: {
        told.withLock { $0 = true }
      }

      await counting {
        #expect(rename(theirs.path, url.path) == 0)
        // NB: a bound so that a watch that never reports fails the run rather than hangs it.
        for _ in 0..<60_000 where !told.withLock({ $0 }) { usleep(1_000) }
        // The reload's end, after observers were told.
        await disk.clock.advance(by: .zero)
      }
      #expect(notes.wrappedValue == [7], "the run took the change in")
    }
  }

  /// The real disk with no watches.
  private struct UnwatchedDisk: FileSystem {
    let base = LocalFileSystem()

    func contents(of url: URL, maximumSize: Int) throws -> Data? {
      try base.contents(of: url, maximumSize: maximumSize)
    }
    func contents(atPath path: String, maximumSize: Int) throws -> (
      data: Data, identity: FileIdentity?
    )? {
      try base.contents(atPath: path, maximumSize: maximumSize)
    }
    func writeAtomically(_ data: Data, to url: URL) throws {
      try base.writeAtomically(data, to: url)
    }
    func writePrivately(_ data: Data, to url: URL) throws { try base.writePrivately(data, to: url) }
    func createAtomically(_ data: Data, at url: URL) throws {
      try base.createAtomically(data, at: url)
    }
    func replaceAtomically(
      _ data: Data, at url: URL, expecting expected: FileIdentity?, creatingFolder: Bool
    ) throws -> FileIdentity? {
      try base.replaceAtomically(
        data, at: url, expecting: expected, creatingFolder: creatingFolder)
    }
    func copyItem(at source: URL, toNew destination: URL) throws -> Bool {
      try base.copyItem(at: source, toNew: destination)
    }
    func resolve(_ url: URL) throws -> URL { try base.resolve(url) }
    func resolve(_ url: URL, path: String, folders: ResolvedFolders) throws -> URL {
      try base.resolve(url, path: path, folders: folders)
    }
    func foldsCase(inFolder path: String, folders: ResolvedFolders) -> Bool {
      base.foldsCase(inFolder: path, folders: folders)
    }
    func removeItem(at url: URL) throws { try base.removeItem(at: url) }
    func contentsOfDirectory(at url: URL) throws -> [String] {
      try base.contentsOfDirectory(at: url)
    }
    func watch(_ url: URL, onChange: @escaping @Sendable () -> Void) -> StorageSubscription? {
      nil
    }
    func watchEntries(
      of folder: URL, matching: @escaping @Sendable (String) -> Bool,
      onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? { nil }
    func watch(
      fileAt path: String, entriesMatching: @escaping @Sendable (String) -> Bool,
      onEntries: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
    ) -> StorageSubscription? { nil }
    func lockExclusively(_ url: URL, timeout: Duration) throws -> FileLock {
      try base.lockExclusively(url, timeout: timeout)
    }
    func folderExists(_ url: URL) -> Bool { base.folderExists(url) }
    func belongsWithStore(_ url: URL, store: URL) -> Bool {
      base.belongsWithStore(url, store: store)
    }
    func lockExclusively(_ url: URL, timeout: Duration, creatingFolder: Bool) throws -> FileLock {
      try base.lockExclusively(url, timeout: timeout, creatingFolder: creatingFolder)
    }
    func identity(of url: URL) throws -> FileIdentity? { try base.identity(of: url) }
    func requestDownload(of url: URL) { base.requestDownload(of: url) }
  }
#endif
