import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Compares Keepsake's JSON codec with Foundation's on random values and damaged bytes: the same
/// bytes written, the same documents accepted, equal values, the same errors (case, coding path,
/// message), and no crash on any input, nesting up to 100,000 levels included (the codec's
/// performance floor: it must beat Foundation's and agree with it byte for byte on acceptance
/// and meaning).
///
/// With an executable, batches run in child processes (`keepsake-stress json-diff-batch`): a
/// batch that dies is split until the crashing case is found, which is counted and reported (a
/// crash of either codec: Foundation's decoder is known to trap on one input, which the campaign
/// keeps from it as Keepsake does).
public struct JSONDiffCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How many cases (see ``JSONDiffBatch`` for the kinds).
    public var cases = 20_000
    /// Determines the random cases.
    public var seed: UInt64 = 1
    /// The `keepsake-stress` executable that runs batches; `nil` runs them in this process.
    public var executable: String?
    /// Cases per child process.
    public var batchSize = 2_500
    /// Changes the bytes Keepsake's encoder wrote and those its decoder is given, for in-process
    /// runs (the default leaves them be); the campaign's tests break the codec this way.
    public var tamper: @Sendable (Data) -> Data = { $0 }

    /// The default campaign.
    public init() {}
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) { self.configuration = configuration }

  /// Runs every case and reports the figures.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var total = JSONDiffBatch.Result()
    var crashes: [String] = []
    let size = max(1, configuration.batchSize)
    for start in stride(from: 0, to: configuration.cases, by: size) {
      let range = start..<min(configuration.cases, start + size)
      if let executable = configuration.executable {
        runIsolated(range, executable: executable, total: &total, crashes: &crashes)
      } else {
        var batch = JSONDiffBatch(seed: configuration.seed, range: range)
        batch.tamper = configuration.tamper
        total.add(batch.run())
      }
    }
    return CampaignReport(
      campaign: "json-diff",
      settings: "seed \(configuration.seed), \(configuration.cases) cases",
      figures: [
        .init("cases", configuration.cases),
        .init("values encoded, same bytes", total.encoded),
        .init("values refused by both encoders, same error", total.encodingRefused),
        .init("documents decoded by both", total.decoded),
        .init("accepted by both, equal values", total.accepted),
        .init("refused by both, same error and path", total.refused),
        .init("deepest nesting refused cleanly", total.deepestRefused),
        .init("older model's saves, unknown members kept, same bytes", total.keptMembers),
        .init("arrays written again after edits through the memo, same bytes", total.writtenAgain),
        .init("differences", total.differences.count, isLoss: true),
        .init("crashes", crashes.count, isLoss: true),
      ],
      failures: crashes + total.differences,
      seconds: started.duration(to: .now).seconds)
  }

  /// Runs `range` in child processes (see `IsolatedBatches`).
  private func runIsolated(
    _ range: Range<Int>, executable: String, total: inout JSONDiffBatch.Result,
    crashes: inout [String]
  ) {
    let batches = IsolatedBatches<JSONDiffBatch.Result>(
      mode: "json-diff-batch", seed: configuration.seed, executable: executable)
    let seed = configuration.seed
    crashes += batches.run(
      range, add: { total.add($0) },
      crashed: { index, ending in
        total.cases += 1
        return "case \(index) crashed the process "
          + "(\(ending.map(String.init(describing:)) ?? "no status")); reproduce with "
          + "keepsake-stress json-diff-batch --seed \(seed) --from \(index) --count 1"
      })
  }

  /// The child mode: runs one batch and prints its result as `result <JSON>`.
  ///
  /// NB: it runs with `SWIFT_DETERMINISTIC_HASHING` (re-executing itself to set it), because
  /// Foundation's `allKeys` lists an object's keys in the order of a dictionary whose hashing is
  /// seeded by its storage address: random per object, unless hashing is deterministic. Then
  /// Keepsake's codec, which builds the same dictionary, lists them in exactly the same order,
  /// so a `[String: Value]` with two bad values reports the same one in both.
  public static func runBatch(seed: UInt64, from: Int, count: Int) -> Int32 {
    if ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil {
      setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
      let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
      execv(ExecutablePath.current, arguments)
      // Only reached if `execv` failed: run as we are.
    }
    let result = JSONDiffBatch(seed: seed, range: from..<(from + count)).run()
    let json = (try? JSONEncoder().encode(result)).map { String(decoding: $0, as: UTF8.self) }
    StandardOutput.write("result \(json ?? "{}")")
    return 0
  }
}
