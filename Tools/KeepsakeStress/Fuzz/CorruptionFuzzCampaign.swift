import DraftsFeature
import Foundation
import Keepsake

/// Loads thousands of damaged drafts files and checks Keepsake never crashes, always reports the
/// damage, and never changes a file it could not read (data-safety rule "A file Keepsake cannot
/// read is never overwritten" (DataSafety.md)).
///
/// Cases start from the golden fixture of every version (see ``FuzzCase``). Each one loads
/// through `@Shared(.fileStorage(url, format: DraftsFormat.self))` in a fresh in-memory
/// context; a refused file must then survive a mutation, `flush()` and `save()` byte for byte.
///
/// With an executable, batches run in child processes (`keepsake-stress fuzz-batch`): a batch
/// that dies is split until the single crashing case is found, which is counted, saved to a
/// file and reported, and the campaign goes on.
///
/// Then each ``BadFileCase`` (a FIFO, a device link, a folder, a file over a small limit, a link
/// loop, a link to a name that is not UTF-8) is loaded from the real disk (data-safety rule "Bad
/// files get a clear error at once" (DataSafety.md)), and each ``OddPathCase`` (dangling links,
/// two paths to one file, a hard link, a 255-byte name, a neighbour whose name is not UTF-8) is
/// loaded, saved and read back; with an executable each runs in a child killed at a deadline,
/// so a hang is counted too.
public struct CorruptionFuzzCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How many cases.
    public var cases = 20_000
    /// Determines the random cases.
    public var seed: UInt64 = 1
    /// The `keepsake-stress` executable that runs batches; `nil` runs them in this process (a
    /// crash then ends the process).
    public var executable: String?
    /// Cases per child process.
    public var batchSize = 2_500
    /// Builds the file system keys use from the in-memory file system, for in-process runs (the
    /// default uses it directly); the campaign's tests wrap it in a broken one.
    package var fileSystem: @Sendable (InMemoryFileSystem) -> any FileSystem = { $0 }

    /// The default campaign.
    public init() {}
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) { self.configuration = configuration }

  /// Runs every case and reports the figures.
  public func run() async -> CampaignReport {
    let started = ContinuousClock.now
    var total = FuzzBatch.Result()
    var crashes: [String] = []
    let size = max(1, configuration.batchSize)
    for start in stride(from: 0, to: configuration.cases, by: size) {
      let range = start..<min(configuration.cases, start + size)
      if let executable = configuration.executable {
        runIsolated(range, executable: executable, total: &total, crashes: &crashes)
      } else {
        var batch = FuzzBatch(seed: configuration.seed, range: range)
        batch.fileSystem = configuration.fileSystem
        total.add(await batch.run())
      }
    }
    let badFiles = await BadFileBatch.run(executable: configuration.executable)
    return CampaignReport(
      campaign: "fuzz",
      settings: "seed \(configuration.seed), \(configuration.cases) cases",
      figures: [
        .init("cases", configuration.cases),
        .init("still readable (loaded)", total.loaded),
        .init("refused with loadError", total.refused),
        .init("crashes", crashes.count, isLoss: true),
        .init("damaged files modified", total.modified, isLoss: true),
        .init(
          "bad files (FIFO, device, folder, oversized, link loop, link to a non-UTF-8 name)",
          badFiles.cases),
        .init("bad files refused at once", badFiles.refused),
        .init(
          "odd paths (dangling links, two paths, hard link, 255-byte name, non-UTF-8 neighbour)",
          badFiles.oddCases),
        .init("odd paths that worked", badFiles.worked),
        .init("odd paths that failed", badFiles.oddFailed, isLoss: true),
        .init("bad files hung", badFiles.hangs, isLoss: true),
        .init("bad files crashed", badFiles.crashes, isLoss: true),
        .init("bad files modified", badFiles.modified, isLoss: true),
      ],
      failures: crashes + total.failures + badFiles.failures,
      seconds: started.duration(to: .now).seconds)
  }

  /// Runs `range` in child processes (see `IsolatedBatches`); a crashing case's input is saved.
  private func runIsolated(
    _ range: Range<Int>, executable: String, total: inout FuzzBatch.Result,
    crashes: inout [String]
  ) {
    let batches = IsolatedBatches<FuzzBatch.Result>(
      mode: "fuzz-batch", seed: configuration.seed, executable: executable)
    let seed = configuration.seed
    crashes += batches.run(
      range, add: { total.add($0) },
      crashed: { index, ending in
        let fuzzCase = FuzzCase.make(seed: seed, index: index)
        let saved = FileManager.default.temporaryDirectory.appendingPathComponent(
          "keepsake-fuzz-crash-\(seed)-\(index).json")
        try? fuzzCase.bytes.write(to: saved)
        total.cases += 1
        return "case \(index) (\(fuzzCase.fixture), \(fuzzCase.damage)) crashed the process "
          + "(\(ending.map(String.init(describing:)) ?? "no status")); input saved to "
          + "\(saved.path); reproduce with keepsake-stress fuzz-batch --seed \(seed) --from "
          + "\(index) --count 1"
      })
  }
}
