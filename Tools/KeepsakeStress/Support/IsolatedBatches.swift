import Foundation

/// Runs a campaign's cases in child processes, a batch each, so a case that crashes is counted
/// instead of ending the run: a batch whose child dies is split in two until the crashing cases
/// are found, one by one.
struct IsolatedBatches<BatchResult: Decodable> {
  /// The child mode that runs a batch (`fuzz-batch`, `json-diff-batch`): it takes `--seed`,
  /// `--from` and `--count`, and prints `result <JSON>`.
  let mode: String
  let seed: UInt64
  let executable: String

  /// Runs `range`: `add` gets the result of each batch that finished, `crashed` is told each
  /// case that ended its process (with how it ended), and returns what to report.
  func run(
    _ range: Range<Int>, add: (BatchResult) -> Void,
    crashed: (Int, ChildProcess.Termination?) -> String
  ) -> [String] {
    let arguments = [
      mode, "--seed", "\(seed)", "--from", "\(range.lowerBound)", "--count", "\(range.count)",
    ]
    var result: BatchResult?
    var ending: ChildProcess.Termination?
    do {
      let child = try ChildProcess(
        executable: executable, arguments: arguments, silencingErrors: true)
      for line in child.readRemainingLines() where line.hasPrefix("result ") {
        result = try? JSONDecoder().decode(
          BatchResult.self, from: Data(line.dropFirst("result ".count).utf8))
      }
      ending = child.wait()
    } catch {
      return ["could not start a \(mode): \(error)"]
    }
    if let result, ending?.succeeded == true {
      add(result)
      return []
    }
    guard range.count > 1 else { return [crashed(range.lowerBound, ending)] }
    let middle = range.lowerBound + range.count / 2
    return run(range.lowerBound..<middle, add: add, crashed: crashed)
      + run(middle..<range.upperBound, add: add, crashed: crashed)
  }
}
