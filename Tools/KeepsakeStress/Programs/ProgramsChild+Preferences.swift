import Foundation
import Keepsake

extension ProgramsChild {
  /// The process on a preferences suite: each entry is a key of its own (`<name>-<n>`), an `Int`
  /// set through `.appStorage`, in the store an app on Linux has (``FilePreferences``'s file).
  ///
  /// It prints what a drafts process prints, but at the stop file it saves nothing: it waits
  /// (up to ``settling``) until the suite's bytes agree with every key it made, with no error
  /// showing, and prints `flushed <end>` then, or `flush-failed unsettled: <keys>`. A change
  /// whose write met a program's (the suite caught empty mid-`cp`, or damaged) must reach the
  /// file once the file reads again: not at the app's next change, which may never come, and not
  /// at its exit, which a crash skips.
  static func runPreferences(_ options: Options) async -> Int32 {
    let context = StorageContext(
      name: options.name, fileSystem: SystemCalls.live.fileSystem, isIsolated: false
    ) { _ in PreferencesStores.file(at: options.url) }
    return await StorageContext.withValue(context) { await runKeys(options) }
  }

  private static func runKeys(_ options: Options) async -> Int32 {
    StandardOutput.write("ready")
    var generator = SeededGenerator(seed: options.seed)
    let deadline = ContinuousClock.now + lifetime
    var keys: [(name: String, shared: Shared<Int>)] = []
    while !FileManager.default.fileExists(atPath: options.stopFile.path)
      && ContinuousClock.now < deadline
    {
      let count = keys.count + 1
      let name = "\(options.name)-\(count)"
      let start = now()
      // NB: a key made while a program writes the suite loads with an error, its change then
      // kept until the suite reads again: the case a settled run must show saved.
      let shared = Shared(.appStorage(name), default: 0)
      shared.withLock { $0 = count }
      keys.append((name, shared))
      if count % 3 == 0 {
        StandardOutput.write("pending \(name) \(start)")
      } else {
        do {
          try await shared.save()
          StandardOutput.write("ack \(name) \(start) \(now())")
        } catch {
          StandardOutput.write("unacked \(name) \(start)")
        }
      }
      try? await Task.sleep(for: .milliseconds(Int.random(in: 5...30, using: &generator)))
    }
    let unsettled = await settle { Self.unsettled(keys, in: options.url) }
    if unsettled.isEmpty {
      StandardOutput.write("flushed \(now())")
    } else {
      StandardOutput.write("flush-failed unsettled: \(unsettled.prefix(10))")
    }
    StandardOutput.write("done")
    return 0
  }

  /// The keys whose value the suite's bytes do not hold, or that show an error.
  ///
  /// A key a
  /// program's blind write removed holds its default, as the suite does: that one agrees (the
  /// campaign excuses what blind writes took).
  static func unsettled(_ keys: [(name: String, shared: Shared<Int>)], in url: URL) -> [String] {
    guard let data = try? Data(contentsOf: url), let suite = ProgramsDocument.suite(in: data)
    else { return ["the suite, unreadable"] }
    return keys.compactMap { key in
      let stored = ProgramsDocument.integer(key.name, in: suite) ?? 0
      let value = key.shared.wrappedValue
      var errors: [any Error] = []
      if let error = key.shared.loadError { errors.append(error) }
      if let error = key.shared.saveError { errors.append(error) }
      guard !errors.isEmpty || stored != value else { return nil }
      let shown = errors.map(Self.firstLine)
      return "\(key.name) (holds \(value), stored \(stored)\(shown.map { "; \($0)" }.joined()))"
    }
  }
}
