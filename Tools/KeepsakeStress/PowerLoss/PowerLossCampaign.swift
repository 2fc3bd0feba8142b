import Foundation
@_spi(Testing) import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Records the system calls of a scripted session, then checks every on-disk state a power cut
/// between any two of them could leave, under each ``PersistenceModel``.
///
/// `SIGKILL` (the crash campaign) cannot test this: the kernel keeps every byte a killed process
/// wrote, flushed or not. Here the session (``PowerLossSession``) runs once on the real disk
/// through a ``SystemCallRecorder``; the log is replayed (``DiskHistory``); for each cut and
/// model, ``CrashStates`` lists what may have survived; each state is written into a scratch
/// folder and opened as a fresh process would (``FreshOpen``). A state is bad when, on it:
/// - a drafts file or the preferences suite holds bytes that are neither the version before the
///   step in flight nor the step's new one: torn, zero-filled, missing, or older than a save that
///   was acknowledged before the cut (data-safety rules "Writes are atomic and durable" and "An
///   acknowledged save is on disk" (DataSafety.md));
/// - a key reports a load error for a file that is not the session's deliberately damaged one;
/// - the damaged bytes are gone, or a quarantine copy of them is torn (rule "A damaged file is
///   preserved before anything replaces it");
/// - a key's own temporary file is still there after the key was opened (recovery).
///
/// Temporary files of copies and of the preferences suite that nothing removes are counted but
/// are not a loss: they hold no data anyone reads.
public struct PowerLossCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// The most crash states checked at one cut, per model.
    public var statesPerCut = 256
    /// Decides which states are checked when a cut has more than ``statesPerCut``.
    public var seed: UInt64 = 1
    /// The persistence models to check.
    public var models = PersistenceModel.allCases
    /// Builds the file system the session writes through from the recording system calls.
    ///
    /// The default is the real writer; the campaign's tests give deliberately broken ones.
    package var fileSystem: @Sendable (SystemCalls) -> any FileSystem = { $0.fileSystem }

    /// The default campaign.
    public init() {}
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// The figures of one model.
  private struct Tally {
    var states = 0
    var distinct: Set<DiskImage> = []
    var bad = 0
    var capped = 0
    var stray: Set<DiskImage> = []
    var failures: [String] = []
  }

  /// Runs the session and checks every crash state of every cut.
  public func run() async -> CampaignReport {
    let started = ContinuousClock.now
    let settings =
      "\(configuration.models.map(\.rawValue).joined(separator: ", ")), "
      + "at most \(configuration.statesPerCut) states per cut, seed \(configuration.seed)"
    var figures: [CampaignReport.Figure] = []
    var failures: [String] = []
    do {
      let scratch = try ScratchFolder(campaign: "power-loss")
      defer { scratch.remove() }
      let root = scratch.url.appendingPathComponent("session").resolvingSymlinksInPath()
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let recorder = SystemCallRecorder()
      let session = PowerLossSession(
        root: root, recorder: recorder, fileSystem: configuration.fileSystem(recorder.calls))
      try session.seed()
      let initial = try DiskImage(reading: root)
      let steps = try await session.run()
      let history = DiskHistory(records: recorder.records, root: root.path, initial: initial)
      figures += [
        .init("steps", steps.count),
        .init("recorded system calls", recorder.records.count),
        .init("crash points", history.operations.count + 1),
      ]
      var observed: [DiskImage: FreshOpen] = [:]
      var stray: Set<DiskImage> = []
      for model in configuration.models {
        let tally = try check(
          history, steps: steps, model: model, scratch: scratch.url, observed: &observed)
        figures += [
          .init("\(model): states checked", tally.states),
          .init("\(model): distinct disk states", tally.distinct.count),
          .init("\(model): cuts over the cap", tally.capped),
          .init("\(model): bad states", tally.bad, isLoss: true),
        ]
        failures += tally.failures
        stray.formUnion(tally.stray)
      }
      figures.append(.init("states with stray temporary files (not a loss)", stray.count))
    } catch {
      failures.append("the campaign could not run: \(error)")
    }
    return CampaignReport(
      campaign: "power-loss", settings: settings, figures: figures, failures: failures,
      seconds: started.duration(to: .now).seconds)
  }

  private func check(
    _ history: DiskHistory, steps: [PowerLossSession.Step], model: PersistenceModel,
    scratch: URL, observed: inout [DiskImage: FreshOpen]
  ) throws -> Tally {
    var tally = Tally()
    var random = SeededGenerator(seed: configuration.seed)
    let states = CrashStates(history: history, model: model, cap: configuration.statesPerCut)
    let writerPID = getpid()
    for cut in 0...history.operations.count {
      let found = states.states(at: cut, random: &random)
      if found.capped { tally.capped += 1 }
      let expected = Expectation(history: history, steps: steps, cut: cut)
      for image in found.images {
        tally.states += 1
        tally.distinct.insert(image)
        let fresh: FreshOpen
        if let known = observed[image] {
          fresh = known
        } else {
          let folder = scratch.appendingPathComponent("state-\(observed.count)")
          fresh = try FreshOpen.observe(image, in: folder, writerPID: writerPID)
          observed[image] = fresh
        }
        if !fresh.strayTemporary.isEmpty { tally.stray.insert(image) }
        let problems = expected.problems(in: fresh)
        guard !problems.isEmpty else { continue }
        tally.bad += 1
        // NB: the first state of each kind of problem at each cut is enough to reproduce it.
        let after = cut == 0 ? "the start" : history.sources[cut - 1]
        let failure =
          "\(model), cut \(cut) after \(after) (\(expected.inFlight)): "
          + problems.joined(separator: "; ")
        if tally.failures.count < 40 && tally.failures.last != failure {
          tally.failures.append(failure)
        }
      }
    }
    return tally
  }
}

/// What a fresh process may find at one cut: for each file, the version acknowledged last and
/// the versions of the steps in flight.
struct Expectation {
  /// The acceptable bytes of each file (`nil` for no file).
  var allowed: [String: [Data?]] = [:]
  /// Versions older than the last acknowledged one, to name a lost save as such.
  var older: [String: [Data?]] = [:]
  /// The steps in flight, for reports.
  var inFlight: String

  init(history: DiskHistory, steps: [PowerLossSession.Step], cut: Int) {
    var flying: [String] = []
    let files = PowerLossSession.keyFiles + [PowerLossSession.preferences]
    for file in files {
      var acknowledged: Data? = history.initial.files[file]
      var before: [Data?] = []
      var pending: [Data?] = []
      for step in steps {
        guard let bytes = step.writes[file] else { continue }
        let begun = (history.position(after: step.begin) ?? .max) <= cut
        let done = (history.position(after: step.acknowledged) ?? .max) <= cut
        if done {
          before.append(acknowledged)
          acknowledged = bytes
        } else if begun {
          pending.append(bytes)
        }
      }
      allowed[file] = [acknowledged] + pending
      older[file] = before
    }
    for step in steps {
      let begun = (history.position(after: step.begin) ?? .max) <= cut
      let done = (history.position(after: step.acknowledged) ?? .max) <= cut
      if begun && !done { flying.append(step.name) }
    }
    inFlight = flying.isEmpty ? "between steps" : "during \(flying.joined(separator: ", "))"
  }

  /// What is wrong with what a fresh process found, if anything.
  func problems(in fresh: FreshOpen) -> [String] {
    var problems: [String] = []
    for file in PowerLossSession.keyFiles {
      guard let key = fresh.keys[file] else { continue }
      problems += version(of: file, key.bytes)
      if let error = key.loadError, key.bytes != PowerLossSession.damagedBytes {
        problems.append("\(file) does not load: \(error)")
      }
      if !key.temporaryLeft.isEmpty {
        problems.append("recovery left \(key.temporaryLeft.joined(separator: ", "))")
      }
    }
    problems += version(of: PowerLossSession.preferences, fresh.preferences)
    if let error = fresh.preferencesError {
      problems.append("the preferences do not load: \(error)")
    }
    let damaged = PowerLossSession.damagedBytes
    if fresh.keys[PowerLossSession.damaged]?.bytes != damaged,
      !fresh.quarantineCopies.values.contains(damaged)
    {
      problems.append("the damaged bytes were replaced and no quarantine copy holds them")
    }
    for (name, bytes) in fresh.quarantineCopies.sorted(by: { $0.key < $1.key })
    where bytes != damaged {
      problems.append("the quarantine copy \(name) is torn (\(bytes.count) bytes)")
    }
    return problems
  }

  private func version(of file: String, _ bytes: Data?) -> [String] {
    guard !(allowed[file] ?? []).contains(bytes) else { return [] }
    if (older[file] ?? []).contains(bytes) {
      return ["\(file) lost an acknowledged save (it is \(bytes == nil ? "missing" : "older"))"]
    }
    guard let bytes else { return ["\(file) is missing"] }
    if !bytes.isEmpty && bytes.allSatisfy({ $0 == 0 }) {
      return ["\(file) is \(bytes.count) zero bytes"]
    }
    return ["\(file) is torn (\(bytes.count) bytes, never saved)"]
  }
}
