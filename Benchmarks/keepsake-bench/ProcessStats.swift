import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the process uses right now: CPU time, resident memory, open descriptors.
enum ProcessStats {
  /// The CPU time of every thread of the process so far (user and system), in seconds.
  ///
  /// NB: `CLOCK_PROCESS_CPUTIME_ID` counts the time the process's threads ran, to the
  /// nanosecond, and not the time they waited for the disk: an fsync's wait is not in it, its
  /// own work in the kernel is. So the figure of fsync-bound work stays steady when the shared
  /// disk's latency swings.
  static func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Resident memory, in bytes, from `/proc/self/statm` (`nil` where there is none).
  static func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return nil
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// How many descriptors the process has open, counted in `/proc/self/fd` (`nil` where there
  /// is none).
  static func openDescriptors() -> Int? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
      return nil
    }
    // The listing itself holds one descriptor open while it reads the folder.
    return names.count - 1
  }
}

/// One repetition of one side: wall-clock and CPU seconds.
struct Sample: Sendable {
  var wall: Double
  var cpu: Double

  /// Measures `body`'s wall-clock and process CPU time.
  static func measure(_ body: () throws -> Void) rethrows -> Sample {
    let cpu = ProcessStats.cpuSeconds()
    let start = ContinuousClock.now
    try body()
    let wall = (ContinuousClock.now - start).seconds
    return Sample(wall: wall, cpu: ProcessStats.cpuSeconds() - cpu)
  }

  /// ``measure(_:)`` for asynchronous work.
  static func measureAsync(_ body: () async throws -> Void) async rethrows -> Sample {
    let cpu = ProcessStats.cpuSeconds()
    let start = ContinuousClock.now
    try await body()
    let wall = (ContinuousClock.now - start).seconds
    return Sample(wall: wall, cpu: ProcessStats.cpuSeconds() - cpu)
  }
}

/// The median, the smallest and the largest of several figures.
struct Spread: Sendable, Equatable {
  var median: Double
  var min: Double
  var max: Double

  /// The spread of `values`; one value is its own median, minimum and maximum.
  init(_ values: [Double]) {
    precondition(!values.isEmpty, "a spread needs at least one figure")
    let sorted = values.sorted()
    let middle = sorted.count / 2
    self.median =
      sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    self.min = sorted[0]
    self.max = sorted[sorted.count - 1]
  }

  /// A single figure.
  init(exactly value: Double) { self.init([value]) }

  var isSingle: Bool { min == max }
}
