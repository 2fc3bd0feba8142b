import DraftsFeature
import Foundation
import Keepsake

// keepsake-bench: Keepsake against a hand-written Foundation baseline, in the same run.
//   swift run -c release keepsake-bench [--json] [--sizes 1000,10000] [--repetitions N]
let arguments = Array(CommandLine.arguments.dropFirst())

if ["--codec", "--codec-child"].contains(arguments.first) { exit(CodecBenchmark.run(arguments)) }
if arguments.first == "--memory-child" {
  // A child process that holds and saves drafts, then prints its peak resident memory.
  exit(await MemoryChild.run(Array(arguments.dropFirst())))
}

var benchmark = Benchmark(
  folder: FileManager.default.temporaryDirectory
    .appendingPathComponent("keepsake-bench-\(UUID().uuidString)"))
benchmark.executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
let json = arguments.contains("--json")
if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
  benchmark.sizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
}
if let index = arguments.firstIndex(of: "--repetitions"), index + 1 < arguments.count,
  let repetitions = Int(arguments[index + 1]), repetitions > 0
{
  benchmark.repetitions = repetitions
}
if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count {
  benchmark.only = Set(arguments[index + 1].split(separator: ",").map(String.init))
}
if !json {
  benchmark.log = { message in FileHandle.standardError.write(Data("… \(message)\n".utf8)) }
}
defer { try? FileManager.default.removeItem(at: benchmark.folder) }

do {
  let results = try await benchmark.run()
  if json {
    let data = try JSONSerialization.data(
      withJSONObject: results.map(\.json), options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  } else {
    print(BenchmarkResult.tableHeader)
    for result in results { print(result.tableRow) }
    let missed = results.filter { !$0.meetsTarget }
    print("\(results.count - missed.count) targets met, \(missed.count) missed")
  }
} catch {
  FileHandle.standardError.write(Data("keepsake-bench: \(error)\n".utf8))
  exit(1)
}
