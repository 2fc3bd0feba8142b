import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process started with `posix_spawn`, whose standard output is read line by line.
///
/// NB: not Foundation's `Process`: the crash campaign needs the exact pid to `SIGKILL`, a
/// blocking read of the pipe without a run loop, and `waitpid` to reap each child at once
/// (hundreds are started per run).
public final class ChildProcess {
  /// The child's process id.
  public let pid: pid_t
  private let output: Int32
  private var buffer: [UInt8] = []
  private var reachedEnd = false
  private var exitStatus: Int32?

  /// Starts `executable` with `arguments`.
  ///
  /// Its standard output goes to a pipe read by ``readLine()``, its standard error is the
  /// parent's unless `silencingErrors` (then it is discarded, for children expected to crash with
  /// a long backtrace). `environment` adds to or replaces variables of this process's
  /// environment.
  ///
  /// - Throws: ``ChildProcessError`` when the pipe or the process cannot be created.
  public init(
    executable: String, arguments: [String], silencingErrors: Bool = false,
    environment: [String: String] = [:]
  ) throws {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw ChildProcessError(what: "pipe", code: errno) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    if silencingErrors {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv = ([executable] + arguments).map { strdup($0) }
    defer { for argument in argv { free(argument) } }
    var variables = ProcessInfo.processInfo.environment
    for (name, value) in environment { variables[name] = value }
    let envp = variables.map { strdup("\($0.key)=\($0.value)") }
    defer { for variable in envp { free(variable) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, nil, argv + [nil], envp + [nil])
    close(fds[1])
    guard status == 0 else {
      close(fds[0])
      throw ChildProcessError(what: "posix_spawn \(executable)", code: status)
    }
    self.pid = pid
    self.output = fds[0]
  }

  deinit {
    if exitStatus == nil {
      sendSignal(SIGKILL, to: pid)
      _ = wait()
    }
    close(output)
  }

  /// The next line the child wrote, without its newline, or `nil` at the end of its output.
  ///
  /// Blocks until a whole line (or the end) arrives.
  public func readLine() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      if reachedEnd {
        guard !buffer.isEmpty else { return nil }
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
      }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 {
        reachedEnd = true
      } else {
        buffer.append(contentsOf: chunk[..<count])
      }
    }
  }

  /// Every remaining line, up to the end of the child's output.
  public func readRemainingLines() -> [String] {
    var lines: [String] = []
    while let line = readLine() { lines.append(line) }
    return lines
  }

  /// Kills the child at once (`SIGKILL`): it gets no chance to flush or clean up.
  public func kill() {
    sendSignal(SIGKILL, to: pid)
  }

  /// Sends `signal` to the child (`SIGTERM`, `SIGINT`: a request to stop).
  public func send(_ signal: Int32) {
    sendSignal(signal, to: pid)
  }

  /// Waits for the child to end and returns how it ended.
  @discardableResult
  public func wait() -> Termination {
    if let exitStatus { return Termination(status: exitStatus) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    exitStatus = status
    return Termination(status: status)
  }

  /// How a child process ended.
  public struct Termination: Equatable, Sendable, CustomStringConvertible {
    /// The raw `waitpid` status.
    public var status: Int32

    /// The signal that ended the process, if one did.
    public var signal: Int32? {
      let signal = status & 0x7f
      return signal != 0 && signal != 0x7f ? signal : nil
    }

    /// The exit code, when the process exited normally.
    public var exitCode: Int32? { signal == nil ? (status >> 8) & 0xff : nil }

    /// Whether the process exited normally with code 0.
    public var succeeded: Bool { exitCode == 0 }

    public var description: String {
      if let signal { return "killed by signal \(signal)" }
      return "exit code \(exitCode ?? -1)"
    }
  }
}

/// Sends `signal` to `pid`; a method named `kill` hides the C function inside the class.
private func sendSignal(_ signal: Int32, to pid: pid_t) {
  _ = kill(pid, signal)
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
  /// What failed (`pipe`, `posix_spawn <path>`).
  public var what: String
  /// The `errno` it failed with.
  public var code: Int32

  public var description: String { "Could not \(what): \(String(cString: strerror(code)))." }
}
