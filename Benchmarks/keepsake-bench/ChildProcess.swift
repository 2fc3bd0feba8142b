import Foundation

/// Runs this benchmark (or a tool) as a child process, for figures a process can only give of
/// itself: its peak memory, or the system calls a tracer sees.
enum ChildProcess {
  /// Runs `executable` with `arguments` and returns what it printed, trimmed.
  ///
  /// - Throws: ``BenchmarkError`` when it exits with another status than 0.
  static func run(_ executable: URL, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard process.terminationStatus == 0 else {
      throw BenchmarkError(
        "\(executable.lastPathComponent) \(arguments.first ?? "") exited with status "
          + "\(process.terminationStatus): \(text)")
    }
    return text
  }
}
