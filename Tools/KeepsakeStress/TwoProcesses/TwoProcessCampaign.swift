import Foundation
import Keepsake

/// Two writer processes and one watcher process share one file for a while: no read may ever
/// see a torn value, the watcher must end on the final value, and no temporary file may remain.
///
/// The writers (`keepsake-stress writer --id A` and `--id B`) replace the whole value in turn,
/// each tagged with its writer and sequence number; the watcher (``TwoProcessWatcher``) follows
/// the file through its `@Shared` (the file watcher's reloads) and by reading the bytes itself.
public struct TwoProcessCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// How long the writers write.
    public var seconds: Double = 10
    /// The `keepsake-stress` executable to start as writers and watcher.
    public var executable: String
    /// Records per value.
    public var records = CounterValue.defaultRecordCount

    /// The default campaign, starting `executable` as the children.
    public init(executable: String) { self.executable = executable }
  }

  /// The settings.
  public var configuration: Configuration

  /// A campaign with these settings.
  public init(_ configuration: Configuration) { self.configuration = configuration }

  /// Runs the writers and the watcher and reports the figures.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var failures: [String] = []
    var writes = 0
    var figures = TwoProcessWatcher.Figures()
    var temporaryLeft = 0
    var finalComplete = false
    do {
      let folder = try ScratchFolder(campaign: "two-process")
      defer { folder.remove() }
      let url = folder.url.appendingPathComponent("shared.json")
      let stop = folder.url.appendingPathComponent("stop")
      let executable = configuration.executable
      let watcher = try ChildProcess(
        executable: executable,
        arguments: [
          "watcher", url.path, "--stop-file", stop.path,
          "--seconds", "\(configuration.seconds * 3 + 30)",
        ])
      if watcher.readLine() != "ready" { failures.append("the watcher did not start") }
      let writers = try ["A", "B"].map { id in
        try ChildProcess(
          executable: executable,
          arguments: [
            "writer", url.path, "--id", id, "--seconds", "\(configuration.seconds)",
            "--records", "\(configuration.records)",
          ])
      }
      for (id, writer) in zip(["A", "B"], writers) {
        // Writers print only `ready` and `done`, so neither pipe fills while the other is read.
        let lines = writer.readRemainingLines()
        let ending = writer.wait()
        if let done = lines.last(where: { $0.hasPrefix("done ") }),
          let count = Int(done.dropFirst("done ".count)), ending.succeeded
        {
          writes += count
        } else {
          failures.append("writer \(id) failed (\(ending)): \(lines.suffix(2))")
        }
      }
      _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
      let lines = watcher.readRemainingLines()
      watcher.wait()
      if let line = lines.first(where: { $0.hasPrefix("watched ") }),
        let decoded = try? JSONDecoder().decode(
          TwoProcessWatcher.Figures.self, from: Data(line.dropFirst("watched ".count).utf8))
      {
        figures = decoded
        failures += decoded.problems
      } else {
        failures.append("the watcher reported nothing: \(lines)")
        figures.missedFinalValue = 1
      }
      if let data = FileManager.default.contents(atPath: url.path),
        let value = try? CounterFormat.decode(data)
      {
        finalComplete = value.isComplete
      }
      if !finalComplete { failures.append("the final file is not a complete value") }
      temporaryLeft = folder.temporaryFiles().count
    } catch {
      failures.append("the campaign could not run: \(error)")
    }
    return CampaignReport(
      campaign: "two-process",
      settings: "2 writers + 1 watcher, \(configuration.seconds) s",
      figures: [
        .init("writes", writes),
        .init("watcher direct reads", figures.directReads),
        .init("watcher @Shared updates", figures.sharedUpdates),
        .init("writers seen by the watcher", figures.writersSeen.count),
        .init("torn reads", figures.tornReads, isLoss: true),
        .init("missed final value", figures.missedFinalValue, isLoss: true),
        .init("temporary files left", temporaryLeft, isLoss: true),
      ],
      failures: failures, seconds: started.duration(to: .now).seconds)
  }
}
