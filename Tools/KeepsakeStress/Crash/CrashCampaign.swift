import Foundation
import Keepsake

/// Kills a writing process at random moments and checks that no acknowledged save is lost and
/// the file always reads.
///
/// Each round starts `keepsake-stress writer`, which saves ``CounterValue``s with growing counters
/// and reports every acknowledged save on its standard output, then sends it `SIGKILL` after a
/// delay drawn from the seed. The file must then decode, be a complete value, and hold a counter at
/// least as high as the last acknowledged one (data-safety rules "Writes are atomic and durable"
/// and "An acknowledged save is on disk" (DataSafety.md)). Every few rounds a `reader` process
/// checks the same through a fresh `@Shared`. Temporary files of killed writers must be gone once
/// the next process has started its key.
///
/// > Important: `SIGKILL` tests process crashes, not power loss: the kernel keeps every write the
/// > process made, fsynced or not. What survives a power cut depends on `fsync` reaching the disk.
public struct CrashCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How many writers to kill.
    public var kills = 300
    /// Determines every delay, so a run can be repeated.
    public var seed: UInt64 = 1
    /// The `keepsake-stress` executable to start in `writer` and `reader` modes.
    public var executable: String
    /// Records per value (300 is about 55 KB of JSON).
    public var records = CounterValue.defaultRecordCount
    /// The longest delay between a writer's start and its kill, in milliseconds (from 1).
    public var maximumDelay = 50
    /// A reader process checks the file after every this many kills.
    public var readerInterval = 10
    /// Starts writers that acknowledge before saving, to check that the campaign catches
    /// lost saves.
    public var acknowledgesBeforeSaving = false

    /// The default campaign, starting `executable` as the child.
    public init(executable: String) { self.executable = executable }
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) { self.configuration = configuration }

  private struct Tally {
    var acknowledged = 0
    var lastAcknowledged = 0
    var unreadable = 0
    var lost = 0
    var temporaryLeft = 0
    var readerChecks = 0
    var failures: [String] = []
  }

  /// Runs every round and reports the figures.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var tally = Tally()
    let settings = "seed \(configuration.seed), \(configuration.kills) kills"
    do {
      let folder = try ScratchFolder(campaign: "crash")
      defer { folder.remove() }
      let url = folder.url.appendingPathComponent("counter.json")
      var random = SeededGenerator(seed: configuration.seed)
      for round in 0..<configuration.kills {
        let delay = Int.random(in: 1...max(1, configuration.maximumDelay), using: &random)
        try killWriter(round: round, delay: delay, url: url, folder: folder, tally: &tally)
        if (round + 1) % max(1, configuration.readerInterval) == 0 {
          try readBack(round: round, url: url, tally: &tally)
        }
      }
      // The last writer's temporary file is removed by the next start: start one more reader.
      try readBack(round: configuration.kills, url: url, tally: &tally)
      tally.temporaryLeft += folder.temporaryFiles().count
    } catch {
      tally.failures.append("the campaign could not run: \(error)")
    }
    return CampaignReport(
      campaign: "crash", settings: settings,
      figures: [
        .init("kills (SIGKILL)", configuration.kills),
        .init("acknowledged saves", tally.acknowledged),
        .init("reader process checks", tally.readerChecks),
        .init("unreadable files", tally.unreadable, isLoss: true),
        .init("lost acknowledged saves", tally.lost, isLoss: true),
        .init("temporary files left behind", tally.temporaryLeft, isLoss: true),
      ],
      failures: tally.failures, seconds: started.duration(to: .now).seconds)
  }

  private func killWriter(
    round: Int, delay: Int, url: URL, folder: ScratchFolder, tally: inout Tally
  ) throws {
    var arguments = ["writer", url.path, "--records", "\(configuration.records)", "--report-saves"]
    if configuration.acknowledgesBeforeSaving { arguments.append("--ack-before-save") }
    let writer = try ChildProcess(executable: configuration.executable, arguments: arguments)
    guard let first = writer.readLine(), first.hasPrefix("ready ") else {
      let rest = writer.readRemainingLines().joined(separator: " | ")
      let ending = writer.wait()
      tally.unreadable += 1
      tally.failures.append("round \(round): the writer did not start (\(ending)): \(rest)")
      return
    }
    // The writer has started its key, which removes temporary files of dead writers: anything
    // left now (not the live writer's own) stays behind.
    let left = folder.temporaryFiles().filter {
      ScratchFolder.writerPID(ofTemporaryFile: $0) != writer.pid
    }
    if !left.isEmpty {
      tally.temporaryLeft += left.count
      tally.failures.append("round \(round): temporary files left after a start: \(left)")
      for name in left { try? FileManager.default.removeItem(at: folder.url.appending(path: name)) }
    }
    if let loaded = Int(first.dropFirst("ready ".count)), loaded < tally.lastAcknowledged {
      tally.lost += 1
      tally.failures.append(
        "round \(round): the writer loaded \(loaded), below acknowledged \(tally.lastAcknowledged)")
    }
    usleep(UInt32(delay) * 1000)
    writer.kill()
    for line in writer.readRemainingLines() {
      guard line.hasPrefix("saved "), let counter = Int(line.dropFirst("saved ".count)) else {
        tally.failures.append("round \(round): unexpected writer output: \(line)")
        continue
      }
      tally.acknowledged += 1
      tally.lastAcknowledged = max(tally.lastAcknowledged, counter)
    }
    let ending = writer.wait()
    if ending.signal != SIGKILL {
      tally.failures.append("round \(round): the writer ended on its own (\(ending))")
    }
    check(round: round, url: url, tally: &tally)
  }

  /// Reads the file directly, with the format, as a crash-recovery check would.
  private func check(round: Int, url: URL, tally: inout Tally) {
    guard let data = FileManager.default.contents(atPath: url.path) else {
      if tally.lastAcknowledged > 0 {
        tally.lost += 1
        tally.failures.append("round \(round): the file is gone after acknowledged saves")
      }
      return
    }
    do {
      let value = try CounterFormat.decode(data)
      if !value.isComplete {
        tally.unreadable += 1
        tally.failures.append("round \(round): the file holds a mixed value \(value.counter)")
      } else if value.counter < tally.lastAcknowledged {
        tally.lost += 1
        tally.failures.append(
          "round \(round): the file holds \(value.counter), acknowledged \(tally.lastAcknowledged)"
        )
      }
    } catch {
      tally.unreadable += 1
      tally.failures.append("round \(round): \(data.count) bytes do not decode: \(error)")
    }
  }

  /// Starts a `reader` process, which reads through a fresh `@Shared` (and cleans up).
  private func readBack(round: Int, url: URL, tally: inout Tally) throws {
    let reader = try ChildProcess(
      executable: configuration.executable, arguments: ["reader", url.path])
    let lines = reader.readRemainingLines()
    let ending = reader.wait()
    tally.readerChecks += 1
    let line = lines.first ?? "(nothing, \(ending))"
    let words = line.split(separator: " ")
    if words.first == "missing" && tally.lastAcknowledged == 0 { return }
    guard words.count == 4, words[0] == "value", let counter = Int(words[1]) else {
      tally.unreadable += 1
      tally.failures.append("reader after round \(round): \(line)")
      return
    }
    if words[3] != "complete" {
      tally.unreadable += 1
      tally.failures.append("reader after round \(round): \(line)")
    } else if counter < tally.lastAcknowledged {
      tally.lost += 1
      tally.failures.append(
        "reader after round \(round): \(counter), acknowledged \(tally.lastAcknowledged)")
    }
  }
}

extension Duration {
  /// The duration in seconds, for printing.
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
