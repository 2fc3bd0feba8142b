import DraftsFeature
import Foundation
import Keepsake

/// Runs a range of fuzz cases in this process and tallies what happened.
///
/// The corruption campaign runs batches in child processes (`keepsake-stress fuzz-batch`), so a
/// crash on one input is counted instead of ending the campaign; its tests run them in process.
public struct FuzzBatch: Sendable {
  /// What a batch found; printed by a child as one line of JSON.
  public struct Result: Codable, Sendable, Equatable {
    /// Cases run.
    public var cases = 0
    /// Cases whose file still decoded (a harmless mutation).
    public var loaded = 0
    /// Cases refused with a `loadError`.
    public var refused = 0
    /// Refused cases whose file Keepsake changed (or beside which it wrote a file).
    public var modified = 0
    /// One line per problem, naming the case.
    public var failures: [String] = []

    /// An empty tally.
    public init() {}

    /// Adds another batch's tally.
    public mutating func add(_ other: Result) {
      cases += other.cases
      loaded += other.loaded
      refused += other.refused
      modified += other.modified
      failures += other.failures
    }
  }

  /// The run's seed.
  public var seed: UInt64
  /// The case indices.
  public var range: Range<Int>
  /// Builds the file system keys use from the in-memory file system (the default uses it directly).
  package var fileSystem: @Sendable (InMemoryFileSystem) -> any FileSystem = { $0 }

  /// A batch of the cases `range` of the run with `seed`.
  public init(seed: UInt64, range: Range<Int>) {
    self.seed = seed
    self.range = range
  }

  static let url = URL(fileURLWithPath: "/fuzz/drafts.json")

  /// Runs every case of the batch.
  public func run() async -> Result {
    var result = Result()
    for index in range {
      await run(FuzzCase.make(seed: seed, index: index), into: &result)
    }
    return result
  }

  private func run(_ fuzzCase: FuzzCase, into result: inout Result) async {
    result.cases += 1
    let disk = InMemoryFileSystem()
    disk.setContents(fuzzCase.bytes, at: Self.url, notifyingWatchers: false)
    let expected = Swift.Result { () throws(FormatError) in try DraftsFormat.decode(fuzzCase.bytes)
    }
    let context = StorageContext.inMemory(
      name: "fuzz \(fuzzCase.index)", fileSystem: fileSystem(disk))
    let label = "case \(fuzzCase.index) (\(fuzzCase.fixture), \(fuzzCase.damage))"
    await StorageContext.withValue(context) {
      @Shared(.fileStorage(Self.url, format: DraftsFormat.self)) var drafts: [Draft] = []
      guard $drafts.loadError != nil else {
        result.loaded += 1
        // NB: a load writes nothing, so the file is as it was made; a disk that changed it
        // under the read is caught here too, whatever the key then read.
        if disk.files != [Self.url.path: fuzzCase.bytes] {
          result.modified += 1
          result.failures.append("\(label): the file was modified by its load")
        }
        if case .success(let value) = expected, value == drafts, !fuzzCase.bytes.isEmpty { return }
        result.failures.append("\(label): loaded without error, unlike DraftsFormat.decode")
        return
      }
      result.refused += 1
      if case .success = expected, !fuzzCase.bytes.isEmpty {
        result.failures.append("\(label): refused, though DraftsFormat.decode reads it")
      }
      // An app keeps working after the failure: every way of writing must leave the file be.
      $drafts.withLock { $0.append(Draft(body: "Escrito después del daño")) }
      var flushed = false
      do {
        try await $drafts.flush()
        flushed = true
      } catch {}
      if flushed { result.failures.append("\(label): flush() succeeded over an unreadable file") }
      var saved = false
      do {
        try await $drafts.save()
        saved = true
      } catch {}
      if saved { result.failures.append("\(label): save() succeeded over an unreadable file") }
      if $drafts.saveError == nil { result.failures.append("\(label): no saveError was set") }
      // NB: the change refused is kept beside the file (`.unsaved-`): the one file a save may
      // add, and it must hold the change.
      let kept = disk.files.filter { Self.isUnsavedCopy($0.key) }
      if kept.count != 1
        || !kept.values.contains(where: { String(decoding: $0, as: UTF8.self).contains("Escrito") })
      {
        result.failures.append("\(label): the refused change was not kept beside the file")
      }
      if disk.files.filter({ !Self.isUnsavedCopy($0.key) })
        != [Self.url.path: fuzzCase.bytes]
      {
        result.modified += 1
        result.failures.append("\(label): the damaged file was modified or a file was added")
      }
    }
  }

  /// Whether `path` is a change kept beside its file because it could not be saved.
  private static func isUnsavedCopy(_ path: String) -> Bool {
    KeptCopy(url: URL(fileURLWithPath: path))?.reason == .unsaved
  }
}
