import Foundation
import Keepsake

/// Processes keep a file open through `@Shared` and add to it while the programs around a
/// user's files work on it for real: `rm *.lock`, `touch`, a same-size edit copied
/// over with `cp -p` (its time put back), `sed -i`, Syncthing's replace (remove, then rename a
/// new version in), a script's `rm` then `cp`, and an editor's `cp` over the file, ignoring
/// the lock.
///
/// The file is the drafts example's (the processes add drafts through its key), or a
/// preferences suite (``ProgramsDocument/preferences``: each process sets keys of its own through
/// `.appStorage`).
///
/// Judged from the bytes, apart from the library: every entry a process's save acknowledged is
/// in the file, unless a program's blind write took it (it read the file before the save and
/// wrote after it: ``OutsidePrograms``); every entry a program added is in the file; the seed
/// entry holds the last edit's text; no draft is there twice; no temporary file is left. On a suite,
/// once the programs stop, each process's changes must reach the file without a save of its
/// own (a change whose write a program's write made fail is written when the file changes
/// again).
/// `--program-writer plain` (Foundation alone, never reading the file again) must lose entries,
/// and does.
public struct ProgramsCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How long the programs work on the file.
    public var seconds = 10.0
    /// Processes adding drafts.
    public var processes = 3
    /// Picks the programs and the pauses.
    public var seed: UInt64 = 1
    /// How the processes write.
    public var writer = ProgramsChild.Mode.library
    /// The file the processes and the programs share.
    public var document = ProgramsDocument.drafts
    /// The operations the programs draw from: all of them, or, for investigating a run, those
    /// `KEEPSAKE_PROGRAMS_ONLY` names (`copyOver,touch`).
    var operations = OutsidePrograms.Operation.allCases
    /// The `keepsake-stress` executable to start as the processes.
    public var executable: String

    /// The default run, starting `executable` as the processes.
    public init(executable: String) { self.executable = executable }
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) {
    self.configuration = configuration
    if let names = ProcessInfo.processInfo.environment["KEEPSAKE_PROGRAMS_ONLY"] {
      let only = Set(names.split(separator: ",").map(String.init))
      self.configuration.operations = OutsidePrograms.Operation.allCases.filter {
        only.contains("\($0)")
      }
    }
  }

  /// Runs the processes and the programs and reports the figures.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var figures: [CampaignReport.Figure] = []
    var failures: [String] = []
    do {
      let scratch = try ScratchFolder(campaign: "programs")
      // For investigating a run: the folder, and what each process printed, stay.
      var keeps = ProcessInfo.processInfo.environment["KEEPSAKE_PROGRAMS_KEEP"] != nil
      defer { if !keeps { scratch.remove() } }
      if keeps { figures.append(.init("kept at \(scratch.url.path)", 0)) }
      try run(in: scratch, figures: &figures, failures: &failures)
      // A loss the library's writer met stays too: one seen once, under load, must be read.
      if !failures.isEmpty && !keeps && configuration.writer == .library {
        keeps = true
        failures.append(
          "the folder, the programs' journal and each process's output: \(scratch.url.path)")
      }
    } catch {
      failures.append("the campaign could not run: \(error)")
    }
    return CampaignReport(
      campaign: configuration.document == .drafts ? "programs" : "programs on preferences",
      settings: "\(configuration.processes) processes, \(Int(configuration.seconds)) s of "
        + "programs on \(configuration.document.fileName), \(configuration.writer.rawValue) "
        + "writer, seed \(configuration.seed)",
      figures: figures, failures: failures, seconds: started.duration(to: .now).seconds)
  }

  private func run(
    in scratch: ScratchFolder, figures: inout [CampaignReport.Figure], failures: inout [String]
  ) throws {
    let programs = try OutsidePrograms.locate().get()
    let folder = scratch.url.appendingPathComponent("folder")
    let sources = scratch.url.appendingPathComponent("sources")
    for url in [folder, sources] {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    let file = folder.appendingPathComponent(configuration.document.fileName)
    try configuration.document.initialData().write(to: file)
    let stop = scratch.url.appendingPathComponent("stop")
    var children: [(name: String, reader: ChildReader)] = []
    defer {
      _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
      for child in children { child.reader.finish(timeout: 60) }
    }
    for index in 1...configuration.processes {
      let name = "p\(index)"
      let child = try ChildProcess(
        executable: configuration.executable,
        arguments: [
          "programs-child", file.path, "--name", name, "--seed",
          "\(configuration.seed &+ UInt64(index))", "--mode", configuration.writer.rawValue,
          "--stop-file", stop.path, "--document", configuration.document.rawValue,
        ])
      children.append((name, ChildReader(child)))
    }
    for child in children where !child.reader.waitFor("ready", timeout: 60) {
      throw ProgramsCampaignError(
        "process \(child.name) did not start: \(child.reader.lines.suffix(2))")
    }
    var outside = OutsidePrograms(
      file: file, document: configuration.document, sources: sources, programs: programs)
    var generator = SeededGenerator(seed: configuration.seed)
    let deadline = ContinuousClock.now + .seconds(configuration.seconds)
    var number = 0
    // Rounds of every operation, each in an order the seed draws, the last one finished: a
    // short run, or a slow machine's, has them all.
    var round: [OutsidePrograms.Operation] = []
    while ContinuousClock.now < deadline || !round.isEmpty {
      number += 1
      if round.isEmpty { round = configuration.operations.shuffled(using: &generator) }
      if let operation = round.popLast() {
        _ = try outside.perform(operation, number: number)
      }
      Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.08, using: &generator))
    }
    _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
    for child in children { child.reader.finish(timeout: 60) }
    var log = ProgramsLog()
    for child in children {
      log.read(child.reader.lines, of: child.name)
      let printed = scratch.url.appendingPathComponent("\(child.name).log")
      try? child.reader.lines.joined(separator: "\n").write(
        to: printed, atomically: false, encoding: .utf8)
      if child.reader.ending?.succeeded != true || !child.reader.lines.contains("done") {
        failures.append(
          "process \(child.name) ended \(child.reader.ending.map { "\($0)" } ?? "unknown"): "
            + "\(child.reader.lines.suffix(2))")
      }
    }
    try? outside.journal.joined(separator: "\n").write(
      to: scratch.url.appendingPathComponent("programs.log"), atomically: false, encoding: .utf8)
    figures += OutsidePrograms.Operation.allCases.map {
      .init("ran \($0.rawValue)", outside.counts[$0] ?? 0)
    }
    figures.append(.init("programs that failed", outside.failures.values.reduce(0, +)))
    figures += judge(log, outside, folder: folder, file: file, &failures)
  }

  private func judge(
    _ log: ProgramsLog, _ outside: OutsidePrograms, folder: URL, file: URL,
    _ failures: inout [String]
  ) -> [CampaignReport.Figure] {
    let document = configuration.document
    var present: [String] = []
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    // An entry in a copy the library kept beside the file and reported is not lost.
    let stem = file.deletingPathExtension().lastPathComponent
    let copies = names.filter { $0.hasPrefix("\(stem).conflict-") }
    for name in copies {
      let data = (try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data()
      present += document.entries(in: data) ?? []
    }
    guard let data = try? Data(contentsOf: file), let entries = document.entries(in: data) else {
      failures.append("the final file is not a readable \(document.rawValue) file")
      return [.init("unreadable final file", 1, isLoss: true)]
    }
    let inFile = Set(entries + present)
    let (lost, excused) = log.missing(from: inFile, windows: outside.windows)
    let lostOutside = outside.added.filter { !inFile.contains($0) }
    let seed = document.seed(in: data)
    let editLost = outside.lastEdit.map { seed == $0 ? 0 : 1 } ?? 0
    let duplicates = entries.count - Set(entries).count
    let temporary = ScratchFolder.temporaryFiles(in: folder).count
    if !lost.isEmpty { failures.append("acknowledged entries lost: \(lost.prefix(10))") }
    if !lostOutside.isEmpty {
      // NB: a program that failed after its `rm` (a script's `cp` refused because a process
      // saved into the emptied name first) removed what the file held: named, so a loss can be
      // told from it without the kept folder.
      let failed = outside.failures.sorted { $0.key.rawValue < $1.key.rawValue }
        .map { "\($0.key.rawValue) ×\($0.value)" }
      failures.append(
        "entries the programs added, lost: \(lostOutside.prefix(10))"
          + (failed.isEmpty ? "" : " (programs that failed: \(failed.joined(separator: ", ")))"))
    }
    if editLost > 0 {
      failures.append(
        "the last same-size edit (\(outside.lastEdit ?? "")) is gone: \(seed ?? "no seed")")
    }
    if !log.flushFailures.isEmpty { failures.append("last saves failed: \(log.flushFailures)") }
    return [
      .init("entries added by the processes", log.added),
      .init("acknowledged", log.acknowledged.count),
      .init("saves refused while a program wrote the file", log.refused),
      .init("acknowledged entries a program's blind write took", excused),
      .init("copies kept beside the file", copies.count),
      .init("acknowledged entries lost", lost.count, isLoss: true),
      .init("entries the programs added, lost", lostOutside.count, isLoss: true),
      .init("same-size edits lost", editLost, isLoss: true),
      .init("entries duplicated", duplicates, isLoss: true),
      .init("temporary files left", temporary, isLoss: true),
    ]
  }
}

/// What the processes of a programs campaign printed, read into entries and their times.
struct ProgramsLog {
  struct Draft {
    var body: String
    var start: UInt64
    var end: UInt64
  }

  /// Entries whose save, or a later one, returned.
  private(set) var acknowledged: [Draft] = []
  private(set) var added = 0
  private(set) var refused = 0
  private(set) var flushFailures: [String] = []

  /// The acknowledged entries `present` lacks: those no blind write can have taken (a program
  /// read the file before the entry's save returned, and wrote after the entry was made), and
  /// how many one can have.
  func missing(
    from present: Set<String>, windows: [(start: UInt64, end: UInt64)]
  ) -> (lost: [String], excused: Int) {
    var lost: [String] = []
    var excused = 0
    for draft in acknowledged where !present.contains(draft.body) {
      if windows.contains(where: { $0.start < draft.end && $0.end > draft.start }) {
        excused += 1
      } else {
        lost.append(draft.body)
      }
    }
    return (lost, excused)
  }

  /// Reads the lines of one process.
  mutating func read(_ lines: [String], of name: String) {
    var waiting: [(body: String, start: UInt64)] = []
    for line in lines {
      let parts = line.split(separator: " ").map(String.init)
      switch parts.first {
      case "ack" where parts.count == 4:
        added += 1
        if let start = UInt64(parts[2]), let end = UInt64(parts[3]) {
          acknowledged.append(Draft(body: parts[1], start: start, end: end))
        }
      case "pending" where parts.count == 3, "unacked" where parts.count == 3:
        added += 1
        if parts[0] == "unacked" { refused += 1 }
        if let start = UInt64(parts[2]) { waiting.append((parts[1], start)) }
      case "flushed" where parts.count == 2:
        guard let end = UInt64(parts[1]) else { continue }
        acknowledged += waiting.map { Draft(body: $0.body, start: $0.start, end: end) }
        waiting = []
      case "flush-failed":
        flushFailures.append("\(name): \(line)")
      default:
        continue
      }
    }
  }
}
