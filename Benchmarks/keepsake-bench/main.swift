import DraftsFeature
import Foundation
import Keepsake
import KeepsakeStress

// keepsake-bench: Keepsake against a hand-written floor, in the same run.
//   swift run -c release keepsake-bench [--json] [--sizes 1000,10000] [--repetitions N]
//     [--file-repetitions N] [--only scenario,scenario]
//   swift run -c release keepsake-bench --profile SCENARIO COUNT   (for valgrind's callgrind)
let arguments = Array(CommandLine.arguments.dropFirst())

if ["--codec", "--codec-child"].contains(arguments.first) { exit(CodecBenchmark.run(arguments)) }
if arguments.first == "--memory-child" {
  // A child process that holds and saves drafts, then prints its peak resident memory.
  exit(await MemoryChild.run(Array(arguments.dropFirst())))
}
if arguments.first == "--profile" {
  // One scenario's Keepsake side, synchronously, for instruction counts (see ProfileChild).
  exit(ProfileChild.run(Array(arguments.dropFirst())))
}
if arguments.first == "--keys-child" {
  // A child process that creates, reads and drops file keys, then prints what it measured.
  exit(Benchmark.runChurnChild(Array(arguments.dropFirst())))
}
if arguments.first == "--processes-child" {
  // One of the processes of the `processes` row: `update` transactions on a shared file.
  guard let options = ProcessesChild.Options(arguments: Array(arguments.dropFirst())) else {
    FileHandle.standardError.write(Data("keepsake-bench: bad --processes-child settings\n".utf8))
    exit(2)
  }
  exit(await ProcessesChild.run(options))
}
if arguments.first == "--fsync-child" {
  // A child process, traced by strace, that makes a known number of durable saves.
  exit(await FsyncCount.runChild(Array(arguments.dropFirst())))
}

var benchmark = Benchmark(
  folder: FileManager.default.temporaryDirectory
    .appendingPathComponent("keepsake-bench-\(UUID().uuidString)"))
benchmark.executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
benchmark.processesChild = benchmark.executable.map { ($0.path, ["--processes-child"]) }
let json = arguments.contains("--json")
func value(after option: String) -> String? {
  guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else {
    return nil
  }
  return arguments[index + 1]
}
if let sizes = value(after: "--sizes") {
  benchmark.sizes = sizes.split(separator: ",").compactMap { Int($0) }
}
if let text = value(after: "--repetitions"), let repetitions = Int(text), repetitions > 0 {
  benchmark.repetitions = repetitions
}
if let text = value(after: "--file-repetitions"), let repetitions = Int(text), repetitions > 0 {
  benchmark.fileRepetitions = repetitions
}
if let only = value(after: "--only") {
  benchmark.only = Set(only.split(separator: ",").map(String.init))
  let unknown = benchmark.only!.subtracting(Benchmark.scenarios)
  guard unknown.isEmpty else {
    FileHandle.standardError.write(
      Data(
        ("keepsake-bench: unknown scenario \(unknown.sorted().joined(separator: ", ")); "
          + "known: \(Benchmark.scenarios.joined(separator: ", "))\n").utf8))
    exit(2)
  }
}
if !json {
  benchmark.log = { message in FileHandle.standardError.write(Data("… \(message)\n".utf8)) }
}
defer { try? FileManager.default.removeItem(at: benchmark.folder) }

do {
  let start = ContinuousClock.now
  let results = try await benchmark.run()
  if json {
    let data = try JSONSerialization.data(
      withJSONObject: results.map(\.json), options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  } else {
    print(BenchmarkResult.tableHeader)
    for result in results { print(result.tableRow) }
    let held = results.filter { $0.target != .report }
    let missed = held.filter { !$0.meetsTarget }
    print(
      "\(held.count - missed.count) targets met, \(missed.count) missed, "
        + "\(results.count - held.count) figures reported only; "
        + String(format: "%.0f s", (ContinuousClock.now - start).seconds))
    let scaling = ScalingReport.lines(results)
    if !scaling.isEmpty {
      print("\nScaling (each step: the factor of the median from one size to the next)")
      for line in scaling { print("  " + line) }
    }
  }
} catch {
  FileHandle.standardError.write(Data("keepsake-bench: \(error)\n".utf8))
  exit(1)
}
