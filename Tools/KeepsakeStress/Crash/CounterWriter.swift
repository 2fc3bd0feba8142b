import Foundation
import Keepsake

/// The child process of the crash and two-process campaigns (`keepsake-stress writer`): saves
/// ``CounterValue``s with growing counters through `@Shared`, as an app would.
///
/// It prints `ready <counter on disk>` once its key is loaded, `saved <counter>` after each
/// acknowledged save when asked (`try await $value.save()` returned, so the value is durably on
/// disk, data-safety rule "An acknowledged save is on disk" (DataSafety.md)), and `done <writes>`
/// when its time is up.
public enum CounterWriter {
  /// What the writer does.
  public struct Options: Sendable, Equatable {
    /// The file.
    public var url: URL
    /// The writer's name, stored in every value.
    public var id: String = "crash"
    /// How long to write; `nil` writes until killed.
    public var seconds: Double?
    /// Records per value.
    public var records: Int = CounterValue.defaultRecordCount
    /// Whether to print `saved <counter>` after every save.
    public var reportsEachSave = false
    /// A deliberately broken writer for the campaign's own tests: it reports each counter
    /// *before* saving it, so a kill during the save loses an acknowledged value.
    public var acknowledgesBeforeSaving = false

    /// Options for writing `url`.
    public init(url: URL) { self.url = url }
  }

  /// Runs the writer and returns the process's exit code: 0 when its time is up, 3 when the
  /// file could not be read, 4 when a save failed.
  public static func run(_ options: Options) async -> Int32 {
    await StorageContext.withValue(.disk(name: "writer \(options.id)")) {
      @Shared(.fileStorage(options.url, format: CounterFormat.self))
      var value = CounterValue.make(writer: options.id, counter: 0, records: 0)
      if let loadError = $value.loadError {
        StandardOutput.write("unreadable \(loadError)")
        return 3
      }
      StandardOutput.write("ready \(value.counter)")
      // A writer continues its own sequence; another writer's value starts a new one.
      var counter = value.writer == options.id ? value.counter : 0
      let deadline = options.seconds.map { ContinuousClock.now + .seconds($0) }
      var writes = 0
      while deadline.map({ ContinuousClock.now < $0 }) ?? true {
        counter += 1
        let next = CounterValue.make(writer: options.id, counter: counter, records: options.records)
        $value.withLock { $0 = next }
        if options.acknowledgesBeforeSaving { StandardOutput.write("saved \(counter)") }
        do {
          try await $value.save()
        } catch {
          StandardOutput.write("error \(error)")
          return 4
        }
        if options.reportsEachSave && !options.acknowledgesBeforeSaving {
          StandardOutput.write("saved \(counter)")
        }
        writes += 1
      }
      StandardOutput.write("done \(writes)")
      return 0
    }
  }
}
