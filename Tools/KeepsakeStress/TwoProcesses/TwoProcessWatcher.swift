import Foundation
import Keepsake
import Observation
import Synchronization

/// The watching child of the two-process campaign (`keepsake-stress watcher`): follows a file
/// two other processes keep replacing, through its `@Shared` updates and by reading the file,
/// and checks every value it sees is complete.
///
/// It prints `ready` once its key is loaded. When the stop file appears (the writers are done),
/// it waits for its `@Shared` to hold the final value on disk, then prints one `watched` line
/// with its figures as JSON (``Figures``).
public enum TwoProcessWatcher {
  /// What the watcher saw.
  public struct Figures: Codable, Sendable, Equatable {
    /// Reads of the file's bytes, decoded with the format.
    public var directReads = 0
    /// Changes of the `@Shared` value observed through Observation.
    public var sharedUpdates = 0
    /// Reads that did not decode, or decoded to a value no writer wrote; `loadError`s count too.
    public var tornReads = 0
    /// 1 when the `@Shared` never reached the final value on disk.
    public var missedFinalValue = 0
    /// The writers whose values were seen.
    public var writersSeen: [String] = []
    /// The first problems, for the report.
    public var problems: [String] = []
  }

  /// Watches `url` until `stopFile` exists (or `timeout` seconds passed); returns the exit code.
  public static func run(url: URL, stopFile: URL, timeout: Double) async -> Int32 {
    let figures = await watch(url: url, stopFile: stopFile, timeout: timeout)
    let json = (try? JSONEncoder().encode(figures)).map { String(decoding: $0, as: UTF8.self) }
    StandardOutput.write("watched \(json ?? "{}")")
    return 0
  }

  static func watch(url: URL, stopFile: URL, timeout: Double) async -> Figures {
    await StorageContext.withValue(.disk(name: "watcher")) {
      var figures = Figures()
      var writers = Set<String>()
      func judge(_ value: CounterValue, _ how: String) {
        writers.insert(value.writer)
        if !value.isComplete {
          figures.tornReads += 1
          note(&figures, "\(how): incomplete value \(value.writer) #\(value.counter)")
        }
      }
      @Shared(.fileStorage(url, format: CounterFormat.self))
      var value = CounterValue.make(writer: "none", counter: 0, records: 0)
      let changed = Atomic(false)
      func track() {
        withObservationTracking {
          _ = value
        } onChange: {
          changed.store(true, ordering: .releasing)
        }
      }
      track()
      StandardOutput.write("ready")
      let deadline = ContinuousClock.now + .seconds(timeout)
      var sawLoadError = false
      while !FileManager.default.fileExists(atPath: stopFile.path) && ContinuousClock.now < deadline
      {
        if changed.exchange(false, ordering: .acquiring) {
          // NB: onChange runs before the new value is stored; by now it has been.
          track()
          figures.sharedUpdates += 1
          judge(value, "@Shared")
        }
        if let loadError = $value.loadError {
          if !sawLoadError {
            figures.tornReads += 1
            note(&figures, "@Shared loadError: \(loadError)")
          }
          sawLoadError = true
        } else {
          sawLoadError = false
        }
        if let data = FileManager.default.contents(atPath: url.path) {
          figures.directReads += 1
          do {
            judge(try CounterFormat.decode(data), "direct read")
          } catch {
            figures.tornReads += 1
            note(&figures, "direct read of \(data.count) bytes: \(error)")
          }
        }
        try? await Task.sleep(for: .milliseconds(2))
      }
      // The writers are done: the watcher must end on what is on disk.
      let final = FileManager.default.contents(atPath: url.path).flatMap {
        try? CounterFormat.decode($0)
      }
      let settle = ContinuousClock.now + .seconds(5)
      while value != final && ContinuousClock.now < settle {
        try? await Task.sleep(for: .milliseconds(5))
      }
      if value != final {
        figures.missedFinalValue = 1
        note(&figures, "@Shared holds \(value.writer) #\(value.counter), not the final value")
      }
      figures.writersSeen = writers.sorted()
      return figures
    }
  }

  private static func note(_ figures: inout Figures, _ problem: String) {
    if figures.problems.count < 10 { figures.problems.append(problem) }
  }
}
