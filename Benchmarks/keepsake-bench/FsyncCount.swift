import DraftsFeature
import Foundation
import Keepsake

/// Counts the fsyncs of Keepsake's saves as the kernel sees them: `strace -c` of a child process
/// that opens a key and saves it a known number of times.
///
/// NB: a file system seam only sees `writeAtomically`, not the fsyncs inside it; a tracer sees
/// every call, including any a change of `LocalFileSystem` would add or drop. The baseline is
/// hand-written, so it counts its own calls (``Baseline/fsyncCalls``).
enum FsyncCount {
  /// The system calls that make data durable.
  static let syscalls = ["fsync", "fdatasync", "sync_file_range", "syncfs", "sync"]
  /// The tracer, if this machine has one.
  static var strace: URL? {
    ["/usr/bin/strace", "/bin/strace", "/usr/local/bin/strace"]
      .first { FileManager.default.isExecutableFile(atPath: $0) }
      .map(URL.init(fileURLWithPath:))
  }

  /// The fsyncs of one `scenario` operation (`durable-save`: `save()`; `transaction`:
  /// `update`) on a copy of `file` made in `folder`, averaged over `operations` of them, or
  /// `nil` without strace.
  static func traced(
    executable: URL, scenario: String, copyOf file: URL, in folder: URL, operations: Int
  ) throws -> Double? {
    guard let strace else { return nil }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let copy = folder.appendingPathComponent("drafts.json")
    try Data(contentsOf: file).write(to: copy)
    let report = folder.appendingPathComponent("strace.txt")
    _ = try ChildProcess.run(
      strace,
      [
        "-f", "-qq", "--seccomp-bpf", "-c", "-e", "trace=" + syscalls.joined(separator: ","),
        "-o", report.path, executable.path, "--fsync-child", scenario, copy.path,
        String(operations),
      ])
    let calls = calls(inSummary: try String(contentsOf: report, encoding: .utf8))
    return Double(calls) / Double(operations)
  }

  /// The calls of ``syscalls`` in an `strace -c` summary.
  ///
  /// Its rows are `% time, seconds, usecs/call, calls, [errors], syscall`.
  static func calls(inSummary summary: String) -> Int {
    var total = 0
    for line in summary.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 5, let name = fields.last, syscalls.contains(String(name)),
        let calls = Int(fields[3])
      else { continue }
      total += calls
    }
    return total
  }

  /// `--fsync-child SCENARIO FILE COUNT`: opens FILE as a drafts key and makes COUNT saves or
  /// transactions, nothing else that could fsync.
  static func runChild(_ arguments: [String]) async -> Int32 {
    guard arguments.count == 3, let count = Int(arguments[2]) else { return 2 }
    let url = URL(fileURLWithPath: arguments[1])
    let shared = StorageContext.withValue(Benchmark.context()) {
      Shared(.drafts(at: url), default: [])
    }
    guard !shared.wrappedValue.isEmpty else {
      print("error: \(url.path) held no drafts")
      return 1
    }
    let extra = SampleDrafts.make(1, seed: 13)[0]
    do {
      for _ in 0..<count {
        switch arguments[0] {
        case "durable-save": try await shared.save()
        case "large-save":
          shared.withLock { $0[0].body += " (edited)" }
          try await shared.save()
        case "transaction": try await shared.update { $0.append(extra) }
        default: return 2
        }
      }
    } catch {
      print("error: \(error)")
      return 1
    }
    return 0
  }
}
