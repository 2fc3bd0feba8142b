import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Child processes started together and released at the same instant, so that their work
/// really overlaps: each prints `ready`, waits for a start file, works, prints `added <id>` for
/// each item it added durably, and one line beginning with `done`.
///
/// NB: a start file rather than a signal or a pipe: it works the same for the `keepsake-stress`
/// children and for `python3` ones, and a child polling it every millisecond starts within about
/// a millisecond of the others.
struct ChildGroup {
  /// What one child reported.
  struct Child {
    /// The `done` line, or `nil` when the child never printed one.
    var done: String?
    /// The items it reported as durably added.
    var added: [String] = []
    /// Where its transactions' time went, if it said (``LockTiming/line``).
    var timing: LockTiming?
    /// Its other lines (errors, a failed start).
    var otherLines: [String] = []
    /// How it ended.
    var ending: ChildProcess.Termination?

    mutating func take(_ line: String) {
      if line.hasPrefix("added ") {
        added.append(String(line.dropFirst("added ".count)))
      } else if let timing = LockTiming(line: line) {
        self.timing = timing
      } else {
        otherLines.append(line)
      }
    }
  }

  /// Each child's report, in the order of the argument lists.
  var children: [Child] = []
  /// From the start file's creation to the last `done` line: the parallel phase.
  var seconds = 0.0
  /// One line per child that failed to start, print `done` or exit 0.
  var failures: [String] = []

  /// Starts one child of `executable` per argument list, waits for every `ready`, creates
  /// `startFile`, and collects every child's lines until it ends; a child still running after
  /// `timeout` seconds is killed.
  static func run(
    _ name: String, executable: String, arguments: [[String]], startFile: URL, timeout: Double
  ) -> ChildGroup {
    var group = ChildGroup()
    group.children = Array(repeating: Child(), count: arguments.count)
    var started: [(index: Int, process: ChildProcess)] = []
    for (index, words) in arguments.enumerated() {
      do {
        started.append((index, try ChildProcess(executable: executable, arguments: words)))
      } catch {
        group.failures.append("\(name) \(index) could not start: \(error)")
      }
    }
    let pids = started.map(\.process.pid)
    let watchdog = DispatchWorkItem { for pid in pids { _ = kill(pid, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    for (index, child) in started {
      let line = child.readLine()
      if line != "ready" { group.children[index].otherLines.append(line ?? "(no output)") }
    }
    // NB: the clock read first: a child may see the file and start before this thread runs
    // again, and the phase must hold all of their work.
    let start = ContinuousClock.now
    _ = FileManager.default.createFile(atPath: startFile.path, contents: nil)
    var last = start
    // NB: read one child after the other: one still working blocks the loop, but lines of
    // those already done wait in their pipes, so the last `done` read is the last one written
    // (to within the time of a read).
    for (index, child) in started {
      while let line = child.readLine() {
        if line.hasPrefix("done") {
          group.children[index].done = line
          last = .now
          break
        }
        group.children[index].take(line)
      }
    }
    group.seconds = start.duration(to: last).seconds
    for (index, child) in started {
      for line in child.readRemainingLines() { group.children[index].take(line) }
    }
    // NB: cancelled only once every child closed its output (has exited): a child that has
    // not been reaped keeps its pid, so the watchdog cannot hit another process.
    watchdog.cancel()
    for (index, child) in started {
      let ending = child.wait()
      group.children[index].ending = ending
      let report = group.children[index]
      if ending.signal == SIGKILL {
        group.failures.append("\(name) \(index) did not finish within \(Int(timeout)) s, killed")
      } else if !ending.succeeded || report.done == nil {
        // NB: a child's standard error is the campaign's, so a crash's message is printed above.
        let said =
          report.otherLines.isEmpty
          ? "no output, see its standard error" : "\(report.otherLines.suffix(2))"
        group.failures.append("\(name) \(index) failed (\(ending)): \(said)")
      }
    }
    return group
  }

  /// Every item the children reported as durably added.
  var added: [String] { children.flatMap(\.added) }

  /// Where the children's time went, summed over those that said.
  var timing: LockTiming { children.compactMap(\.timing).reduce(LockTiming(), +) }

  /// The whole numbers after `done` in every child's `done` line, by position (`done 200 3 0`
  /// gives `[200, 3, 0]`), summed over the children.
  func doneTotals(count: Int) -> [Int] {
    var totals = Array(repeating: 0, count: count)
    for child in children {
      guard let done = child.done else { continue }
      let numbers = done.split(separator: " ").dropFirst().compactMap { Int($0) }
      for (position, number) in numbers.prefix(count).enumerated() { totals[position] += number }
    }
    return totals
  }
}
