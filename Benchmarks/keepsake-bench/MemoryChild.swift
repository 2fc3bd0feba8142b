import DraftsFeature
import Foundation
import Keepsake

/// The peak-memory scenario runs each side in a process of its own, since a process's peak
/// resident memory (`VmHWM`) only ever grows.
enum MemoryChild {
  /// `keepsake|baseline COUNT FILE`: holds and saves COUNT drafts, prints the peak in bytes.
  static func run(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3, let count = Int(arguments[1]) else { return 2 }
    let url = URL(fileURLWithPath: arguments[2])
    let drafts = SampleDrafts.make(count)
    do {
      if arguments[0] == "keepsake" {
        let shared = StorageContext.withValue(Benchmark.context()) {
          Shared(.drafts(at: url), default: [])
        }
        shared.withLock { $0 = drafts }
        try await shared.save()
      } else {
        try Baseline.durableSave(drafts, to: url)
      }
    } catch {
      print("error: \(error)")
      return 1
    }
    withExtendedLifetime(drafts) {}
    guard let peak = peakResidentBytes() else { return 1 }
    print(peak)
    return 0
  }

  /// `VmHWM` from `/proc/self/status`, in bytes.
  static func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
      return kilobytes.map { $0 * 1024 }
    }
    return nil
  }
}
