import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs every ``BadFileCase`` once and tallies what happened; part of the corruption fuzz
/// campaign.
struct BadFileBatch: Sendable {
  /// Cases made and run.
  var cases = 0
  /// Cases refused at once with a load error that names the problem.
  var refused = 0
  /// Children that had not answered by the deadline.
  var hangs = 0
  /// Children that died.
  var crashes = 0
  /// Cases whose folder changed (the bad file replaced or touched, a file added).
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
        outcome = runChild(badFile, url: url, executable: executable, tally: &tally)
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
    return tally
  }

  /// Runs one case in a child, killing it at the deadline; returns what it printed, or what
  /// became of it.
  private static func runChild(
    _ badFile: BadFileCase, url: URL, executable: String, tally: inout BadFileBatch
  ) -> String {
    let child: ChildProcess
    do {
      child = try ChildProcess(
        executable: executable, arguments: ["bad-file", url.path, "--kind", badFile.rawValue],
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
        + "--kind \(badFile.rawValue)"
    }
    return String(result.dropFirst("result ".count))
  }

  /// Everything in `folder`, without following links: names, inodes, kinds, sizes, times and
  /// link destinations.
  private static func snapshot(_ folder: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().map { name in
      let path = folder.appendingPathComponent(name).path
      var info = stat()
      guard lstat(path, &info) == 0 else { return "\(name): gone" }
      #if canImport(Darwin)
        let modified = "\(info.st_mtimespec.tv_sec).\(info.st_mtimespec.tv_nsec)"
      #else
        let modified = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
      #endif
      let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "-"
      return "\(name) \(info.st_ino) \(info.st_mode) \(info.st_size) \(modified) \(destination)"
    }
  }
}
