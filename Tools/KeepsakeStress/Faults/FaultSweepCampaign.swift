import DraftsFeature
import Foundation
@_spi(Testing) import Keepsake

/// Fails every primitive file operation of a scripted session in turn, with every kind of
/// error, and checks the file is never torn or lost, the error is visible, and the next save
/// succeeds.
///
/// The session runs on an ``InMemoryFileSystem`` seeded with the version 2 drafts fixture: it loads
/// (and migrates) the file, saves, flushes, loads again and saves. A fault-free run counts its
/// operations, k_max; then for every k in 1...k_max and each fault (disk full, permission denied,
/// I/O error, short write) the k-th operation fails and the session goes on. After every step the
/// file must decode to the initial value or one the session saved (data-safety rule "Writes are
/// atomic and durable" (DataSafety.md)); when the fault hit, a save or load must have thrown, or
/// `saveError`/`loadError` must say so; once it has cleared, a load and a save must succeed and
/// store the value in memory.
public struct FaultSweepCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// The faults injected at each operation.
    package var faults: [FileSystemFault] = [
      .fail(.diskFull), .fail(.permissionDenied), .fail(.ioError), .shortWrite(written: 64),
    ]
    /// Builds the file system keys use from the faulty in-memory file system.
    ///
    /// The default uses the disk itself; the campaign's tests wrap it in a deliberately broken
    /// writer.
    package var fileSystem: @Sendable (InMemoryFileSystem) -> any FileSystem = { $0 }

    /// The default sweep.
    public init() {}
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  static let url = URL(fileURLWithPath: "/stress/drafts.json")

  /// Runs the fault-free session, then one session per operation and fault.
  public func run() async -> CampaignReport {
    let started = ContinuousClock.now
    var failures: [String] = []
    let baseline = await FaultSession(fileSystem: configuration.fileSystem).run(
      failing: nil, with: .fail(.ioError))
    failures += baseline.problems.map { "fault-free run: \($0)" }
    let operations = baseline.operations
    var runs = 0
    var faultsHit = 0
    var damaged = 0
    var unreported = 0
    var unrecovered = 0
    var tolerated = 0
    for k in 1...max(1, operations) {
      for fault in configuration.faults {
        let outcome = await FaultSession(fileSystem: configuration.fileSystem).run(
          failing: k, with: fault)
        runs += 1
        if outcome.hit != nil { faultsHit += 1 }
        if outcome.toleratedSilently { tolerated += 1 }
        if outcome.damaged { damaged += 1 }
        if outcome.unreported { unreported += 1 }
        if !outcome.recovered { unrecovered += 1 }
        let label = outcome.hit.map { "\($0.operation) \($0.path)" } ?? "nothing"
        failures += outcome.problems.map { "k=\(k) (\(label)), \(fault): \($0)" }
      }
    }
    return CampaignReport(
      campaign: "faults", settings: "\(configuration.faults.count) fault kinds",
      figures: [
        .init("operations swept (k_max)", operations),
        .init("runs", runs),
        .init("faults that hit", faultsHit),
        .init("faults tolerated silently (cleanup)", tolerated),
        .init("lost or torn files", damaged, isLoss: true),
        .init("faults not reported", unreported, isLoss: true),
        .init("saves failing after the fault cleared", unrecovered, isLoss: true),
      ],
      failures: failures, seconds: started.duration(to: .now).seconds)
  }
}
