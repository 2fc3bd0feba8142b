import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs every ``BadFileCase`` and every ``OddPathCase`` once and tallies what happened; part of
/// the corruption fuzz campaign.
struct BadFileBatch: Sendable {
  /// Bad-file cases made and run.
  var cases = 0
  /// Bad-file cases refused at once with a load error that names the problem.
  var refused = 0
  /// Odd-path cases made and run.
  var oddCases = 0
  /// Odd-path cases that loaded, saved and read back, leaving everything beside the file alone.
  var worked = 0
  /// Odd-path cases that did not work.
  var oddFailed = 0
  /// Children that had not answered by the deadline.
  var hangs = 0
  /// Children that died.
  var crashes = 0
  /// Cases whose folder changed where it must not have (the bad file replaced or touched, a file
  /// added, a link or a neighbour changed).
  var modified = 0
  /// One line per problem, naming the case.
  var failures: [String] = []

  /// How long a child may take to answer before it counts as hung: generous, because a child
  /// that answers at all answers in milliseconds.
  static let deadline = 10.0

  /// Runs every case under a scratch folder, each in a child of `executable` when there is one.
  static func run(executable: String?) async -> BadFileBatch {
    var tally = BadFileBatch()
    let scratch: ScratchFolder
    do {
      scratch = try ScratchFolder(campaign: "fuzz-bad-files")
    } catch {
      tally.failures.append("bad files: no scratch folder: \(error)")
      return tally
    }
    defer { scratch.remove() }
    for badFile in BadFileCase.allCases {
      let folder = scratch.url.appendingPathComponent(badFile.rawValue)
      let url = folder.appendingPathComponent("drafts.json")
      do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try badFile.make(at: url)
      } catch {
        tally.failures.append("bad file \(badFile.rawValue): could not be made: \(error)")
        continue
      }
      tally.cases += 1
      let before = snapshot(folder)
      let outcome: String
      if let executable {
        outcome = runChild(badFile.rawValue, url: url, executable: executable, tally: &tally)
      } else {
        outcome = await badFile.load(url)
      }
      if outcome == "refused" {
        tally.refused += 1
      } else {
        tally.failures.append("bad file \(badFile.rawValue): \(outcome)")
      }
      if snapshot(folder) != before {
        tally.modified += 1
        tally.failures.append("bad file \(badFile.rawValue): its folder was changed")
      }
    }
    for odd in OddPathCase.allCases {
      await run(odd, under: scratch.url, executable: executable, tally: &tally)
    }
    return tally
  }

  /// Makes and runs one odd-path case, and checks that only what a save may change changed.
  private static func run(
    _ odd: OddPathCase, under scratch: URL, executable: String?, tally: inout BadFileBatch
  ) async {
    let folder = scratch.appendingPathComponent(odd.rawValue)
    let url = odd.url(in: folder)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try odd.make(in: folder)
    } catch {
      tally.failures.append("odd path \(odd.rawValue): could not be made: \(error)")
      return
    }
    tally.oddCases += 1
    let before = entries(folder)
    let outcome: String
    if let executable {
      outcome = runChild(odd.rawValue, url: url, executable: executable, tally: &tally)
    } else {
      outcome = await odd.run(url)
    }
    if outcome == "works" {
      tally.worked += 1
    } else {
      tally.oddFailed += 1
      tally.failures.append("odd path \(odd.rawValue): \(outcome)")
    }
    let after = entries(folder)
    let replaced = odd.replaced
    let changed = before.filter { !replaced.contains($0.key) && after[$0.key] != $0.value }
    let made = after.keys.filter { before[$0] == nil && !replaced.contains($0) }
    let tooLong = after.keys.filter { $0.split(separator: "/").contains { $0.utf8.count > 255 } }
    if !changed.isEmpty || !made.isEmpty || !tooLong.isEmpty {
      tally.modified += 1
      tally.failures.append(
        "odd path \(odd.rawValue): changed \(changed.keys.sorted()), made \(made.sorted())")
    }
  }

  /// Every entry under `folder`, by its path relative to it (bytes escaped), described.
  ///
  /// A change kept beside the file because its save was refused (`.unsaved-`) is what a save
  /// may add: the app's change, never the bad file's bytes.
  private static func entries(_ folder: URL) -> [String: String] {
    let root = Array(folder.path.utf8)
    var found: [String: String] = [:]
    for name in RawPath.tree(root)
    where KeptCopy(url: URL(fileURLWithPath: PathBytes.escaped(name)))?.reason != .unsaved {
      found[PathBytes.escaped(name)] = RawPath.describe(root + [UInt8(ascii: "/")] + name)
    }
    return found
  }

  /// Runs one case in a child, killing it at the deadline; returns what it printed, or what
  /// became of it.
  private static func runChild(
    _ kind: String, url: URL, executable: String, tally: inout BadFileBatch
  ) -> String {
    let child: ChildProcess
    do {
      child = try ChildProcess(
        executable: executable, arguments: ["bad-file", url.path, "--kind", kind],
        silencingErrors: true)
    } catch {
      return "could not start a child: \(error)"
    }
    let pid = child.pid
    let watchdog = DispatchWorkItem { _ = kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: watchdog)
    let result = child.readRemainingLines().last { $0.hasPrefix("result ") }
    // NB: cancelled before the child is reaped, so its pid cannot have been reused yet.
    watchdog.cancel()
    let ending = child.wait()
    if ending.signal == SIGKILL {
      tally.hangs += 1
      return "hung: no answer within \(Int(deadline)) s, killed"
    }
    guard ending.succeeded, let result else {
      tally.crashes += 1
      return "crashed the child (\(ending)); reproduce with keepsake-stress bad-file <file> "
        + "--kind \(kind)"
    }
    return String(result.dropFirst("result ".count))
  }

  /// Everything in `folder`, without following links: names (as bytes), inodes, kinds, sizes,
  /// times and link destinations.
  private static func snapshot(_ folder: URL) -> [String] {
    entries(folder).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
  }
}
