import Foundation
import Testing

@testable import KeepsakeTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real `drafts` program, run as a child process the way a person or a script runs it.
enum DraftsProcess {
  /// The `drafts` executable `swift build` puts beside the test bundle in `.build/debug`.
  static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("drafts")

  /// A fresh folder to be the child's home (and store), removed when the folder is released;
  /// requires the built `drafts` product.
  static func home() throws -> TemporaryFolder {
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "build the drafts product first (swift build --build-tests)")
    return try TemporaryFolder()
  }

  /// How a run of `drafts` ended.
  struct Run {
    var exitCode: Int32?
    var wasKilled: Bool
    var standardError: String
  }

  /// Runs `drafts` with a temporary home, killing it when it has not ended within `seconds`.
  ///
  /// NB: the deadline turns a hang (what a FIFO used to cause) into a failure instead of a test
  /// run that never ends; it is generous because it is not a speed requirement.
  static func run(
    _ arguments: [String], home: URL, environment extra: [String: String] = [:],
    through shell: String? = nil, within seconds: Double = 10
  ) throws -> Run {
    let process = Process()
    if let shell {
      // The shell sets something up (a limit, a signal), then becomes `drafts`.
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", shell + #"; exec "$0" "$@""#, executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    // Nothing of the developer's own: a store, defaults or data under the real home.
    process.environment = [
      "HOME": home.path, "XDG_DATA_HOME": home.path, "XDG_CONFIG_HOME": home.path,
      "PATH": "/usr/bin:/bin",
    ].merging(extra) { _, new in new }
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    var wasKilled = false
    if ended.wait(timeout: .now() + seconds) == .timedOut {
      wasKilled = true
      kill(process.processIdentifier, SIGKILL)
      ended.wait()
    }
    let text = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Run(
      exitCode: process.terminationReason == .exit ? process.terminationStatus : nil,
      wasKilled: wasKilled, standardError: text)
  }

  /// Runs `drafts` with arguments and environment given as bytes, which need not be valid UTF-8
  /// (`Process` only takes strings), with nothing else in its environment.
  static func run(bytes arguments: [[UInt8]], environment: [[UInt8]]) throws -> Run {
    let ended = try RawProcess.run(executable.path, arguments: arguments, environment: environment)
    return Run(exitCode: ended.exitCode, wasKilled: false, standardError: ended.standardError)
  }
}
