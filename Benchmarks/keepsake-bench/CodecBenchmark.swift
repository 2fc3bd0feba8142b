import DraftsFeature
import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#endif

/// `keepsake-bench --codec [--sizes 1000,10000,100000] [--repetitions 5]`: Keepsake's JSON codec
/// against Foundation's on the benchmark's drafts, the way Keepsake stores them.
///
/// Encoding is `DraftsFormat.encode` (the envelope `{"content":...,"version":3}`, sorted keys),
/// decoding `DraftsFormat.decode` of that file, with `JSONCoding` selecting each codec in turn.
/// Each figure is the median of the repetitions, which alternate between the codecs (a warm-up
/// of each first); wall time and process CPU time are both reported, since other work on the
/// machine inflates the first. Peak memory is measured in a child process per codec and
/// operation (`--codec-child`): the peak resident size while the operation runs, reset after
/// its input was built, so both sides count the same input.
enum CodecBenchmark {
  static func run(_ arguments: [String]) -> Int32 {
    if arguments.first == "--codec-child" { return child(Array(arguments.dropFirst())) }
    var sizes = [1_000, 10_000, 100_000]
    var repetitions = 5
    if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
      sizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    }
    if let index = arguments.firstIndex(of: "--repetitions"), index + 1 < arguments.count {
      repetitions = max(1, Int(arguments[index + 1]) ?? repetitions)
    }
    print(
      "codec: DraftsFormat encode / decode, Foundation vs Keepsake; medians of \(repetitions) "
        + "alternating repetitions; ratio = Foundation / Keepsake (higher is faster)")
    print(
      "size     op      bytes        F wall    K wall   ratio |   F cpu     K cpu   ratio | "
        + "K MB/s | F peak   K peak  (MB, input included)")
    for size in sizes {
      do {
        try measure(size: size, repetitions: repetitions)
      } catch {
        print("size \(size): \(error)")
        return 1
      }
    }
    JSONCoding.select(.keepsake)
    return 0
  }

  private static func measure(size: Int, repetitions: Int) throws {
    let drafts = SampleDrafts.make(size)
    JSONCoding.select(.foundation)
    let file = try DraftsFormat.encode(drafts)
    JSONCoding.select(.keepsake)
    guard try DraftsFormat.encode(drafts) == file, try DraftsFormat.decode(file) == drafts else {
      throw BenchmarkError("the codecs disagree on \(size) drafts")
    }
    for operation in ["encode", "decode"] {
      var foundation: [(wall: Double, cpu: Double)] = []
      var keepsake: [(wall: Double, cpu: Double)] = []
      func once(_ coding: JSONCoding) throws -> (wall: Double, cpu: Double) {
        JSONCoding.select(coding)
        return try time {
          if operation == "encode" {
            _ = try DraftsFormat.encode(drafts)
          } else {
            _ = try DraftsFormat.decode(file)
          }
        }
      }
      _ = try once(.foundation)
      _ = try once(.keepsake)
      for repetition in 0..<repetitions {
        if repetition.isMultiple(of: 2) {
          foundation.append(try once(.foundation))
          keepsake.append(try once(.keepsake))
        } else {
          keepsake.append(try once(.keepsake))
          foundation.append(try once(.foundation))
        }
      }
      let (fWall, kWall) = (median(foundation.map(\.wall)), median(keepsake.map(\.wall)))
      let (fCPU, kCPU) = (median(foundation.map(\.cpu)), median(keepsake.map(\.cpu)))
      let fPeak = peak("foundation", operation, size)
      let kPeak = peak("keepsake", operation, size)
      print(
        [
          pad("\(size)", 8), pad(operation, 7), pad("\(file.count)", 10),
          seconds(fWall), seconds(kWall), ratio(fWall / kWall) + " |", seconds(fCPU),
          seconds(kCPU), ratio(fCPU / kCPU) + " |",
          pad(String(format: "%.0f", Double(file.count) / kCPU / 1e6), 6) + " |",
          megabytes(fPeak), megabytes(kPeak),
        ].joined(separator: " "))
    }
    JSONCoding.select(.keepsake)
  }

  /// `keepsake|foundation encode|decode COUNT`: builds the input, resets the peak resident
  /// size, runs the operation once, prints the peak in bytes.
  private static func child(_ arguments: [String]) -> Int32 {
    guard arguments.count == 3, let size = Int(arguments[2]) else { return 2 }
    let drafts = SampleDrafts.make(size)
    do {
      JSONCoding.select(.foundation)
      let file = try DraftsFormat.encode(drafts)
      JSONCoding.select(arguments[0] == "keepsake" ? .keepsake : .foundation)
      // NB: writing 5 to clear_refs resets VmHWM to the current resident size (Linux).
      try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
      if arguments[1] == "encode" {
        let output = try DraftsFormat.encode(drafts)
        withExtendedLifetime(output) {}
      } else {
        let values = try DraftsFormat.decode(file)
        withExtendedLifetime(values) {}
      }
      withExtendedLifetime((drafts, file)) {}
    } catch {
      print("error: \(error)")
      return 1
    }
    guard let peak = MemoryChild.peakResidentBytes() else { return 1 }
    print(peak)
    return 0
  }

  private static func peak(_ codec: String, _ operation: String, _ size: Int) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["--codec-child", codec, operation, "\(size)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(
      String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  private static func time(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let wall = ContinuousClock.now
    let cpu = clock()
    try body()
    let elapsed = wall.duration(to: .now)
    return (
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
      Double(clock() - cpu) / Double(CLOCKS_PER_SEC)
    )
  }

  private static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count.isMultiple(of: 2)
      ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }

  private static func seconds(_ value: Double) -> String {
    pad(value < 0.01 ? String(format: "%.2fms", value * 1000) : String(format: "%.3fs", value), 9)
  }

  private static func ratio(_ value: Double) -> String { pad(String(format: "%.2fx", value), 6) }

  private static func megabytes(_ bytes: Double?) -> String {
    pad(bytes.map { String(format: "%.1f", $0 / 1e6) } ?? "n/a", 8)
  }
}
