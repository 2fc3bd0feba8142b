import DraftsFeature
import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A process of the programs campaign: it keeps the drafts file open through `@Shared` and adds
/// drafts to it while real programs (`cp`, `rm`, `mv`, `sed`, `touch`) work on the same file,
/// until the stop file appears.
///
/// With `--document preferences` the file is a preferences suite
/// and each draft a key of its own (see `ProgramsChild+Preferences.swift`).
///
/// It prints `ready`, then for every draft `ack <body> <start> <end>` once `try await save()`
/// returned, `unacked <body> <start>` when the save failed (the change stays pending, for a later
/// save), or `pending <body> <start>` for a draft left to the coalesced save; at the stop file,
/// `flushed <end>` once a last save returned (every earlier draft is then acknowledged), or
/// `flush-failed <error>`, then `done`. Times are nanoseconds of the system's monotonic clock
/// (``ProgramsChild/now()``), which the campaign reads too.
///
/// With `--mode plain` it is the careless writer of the campaign's negative run: it reads the
/// file once with Foundation, and writes what it read with its own entries over the file at
/// every one.
public enum ProgramsChild {
  /// How the process writes.
  public enum Mode: String, Sendable, CaseIterable {
    /// Through Keepsake's drafts key.
    case library
    /// With Foundation alone, never reading the file again: it must lose drafts.
    case plain
  }

  /// What the process does.
  public struct Options: Sendable {
    public var url: URL
    public var name = "p1"
    public var seed: UInt64 = 1
    public var mode = Mode.library
    public var stopFile: URL
    /// What the file is: the processes add drafts, or set keys of a suite.
    public var document = ProgramsDocument.drafts

    /// A process adding drafts to the file at `url` until `stopFile` appears.
    public init(url: URL, stopFile: URL) {
      self.url = url
      self.stopFile = stopFile
    }
  }

  /// How long a process runs at most, if no stop file ever comes.
  static let lifetime: Duration = .seconds(300)

  /// The system's monotonic clock in nanoseconds: one clock for every process of a run.
  public static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// Runs the process; returns 0, or 3 when the file cannot be read at the start.
  public static func run(_ options: Options) async -> Int32 {
    switch (options.mode, options.document) {
    case (.library, .drafts):
      return await StorageContext.withValue(.disk(name: options.name)) {
        await runLibrary(options)
      }
    case (.library, .preferences):
      return await runPreferences(options)
    case (.plain, _):
      return await runPlain(options)
    }
  }

  private static func runLibrary(_ options: Options) async -> Int32 {
    @Shared(.drafts(at: options.url)) var drafts: [Draft] = []
    if let error = $drafts.loadError {
      StandardOutput.write("unreadable \(error)")
      return 3
    }
    StandardOutput.write("ready")
    var generator = SeededGenerator(seed: options.seed)
    let deadline = ContinuousClock.now + lifetime
    var count = 0
    while !FileManager.default.fileExists(atPath: options.stopFile.path)
      && ContinuousClock.now < deadline
    {
      count += 1
      let body = "\(options.name)-\(count)"
      let start = now()
      $drafts.withLock { $0.append(Draft(body: body)) }
      // NB: every third draft is left to the coalesced save, as an app's are: pending while a
      // program replaces the file, acknowledged by a later save.
      if count % 3 == 0 {
        StandardOutput.write("pending \(body) \(start)")
      } else {
        do {
          try await $drafts.save()
          StandardOutput.write("ack \(body) \(start) \(now())")
        } catch {
          StandardOutput.write("unacked \(body) \(start)")
        }
      }
      try? await Task.sleep(for: .milliseconds(Int.random(in: 5...30, using: &generator)))
    }
    let unsettled = await settle { Self.unsettled($drafts, in: options.url) }
    if !unsettled.isEmpty {
      StandardOutput.write("flush-failed unsettled: \(unsettled.prefix(10))")
    }
    do {
      try await $drafts.save()
      StandardOutput.write("flushed \(now())")
    } catch {
      StandardOutput.write("flush-failed \("\(error)".prefix { $0 != "\n" })")
    }
    StandardOutput.write("done")
    return 0
  }

  private static func runPlain(_ options: Options) async -> Int32 {
    guard var data = FileManager.default.contents(atPath: options.url.path),
      options.document.entries(in: data) != nil
    else {
      StandardOutput.write("unreadable \(options.url.path)")
      return 3
    }
    StandardOutput.write("ready")
    var generator = SeededGenerator(seed: options.seed)
    var count = 0
    while !FileManager.default.fileExists(atPath: options.stopFile.path) {
      count += 1
      let body = "\(options.name)-\(count)"
      let start = now()
      // What it read once, with its own entries: never the file as it is now.
      data = options.document.adding(body, to: data) ?? data
      do {
        try data.write(to: options.url, options: .atomic)
        StandardOutput.write("ack \(body) \(start) \(now())")
      } catch {
        StandardOutput.write("unacked \(body) \(start)")
      }
      try? await Task.sleep(for: .milliseconds(Int.random(in: 5...30, using: &generator)))
    }
    StandardOutput.write("flushed \(now())")
    StandardOutput.write("done")
    return 0
  }
}
