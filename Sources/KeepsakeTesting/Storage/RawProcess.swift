// NB: spawning a program (`posix_spawn`) is unavailable on tvOS and watchOS, and an iOS or
// visionOS app may not run programs; the tests that run the package's programs run on Linux and
// macOS only.
#if os(Linux) || os(macOS)
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// Runs a program with arguments and environment given as bytes, which need not be valid UTF-8:
  /// `Process` only takes strings, so it cannot pass the paths a program must refuse (see the Data
  /// safety article on names).
  enum RawProcess {
    /// How the program ended.
    struct Ended: Sendable {
      /// Its exit status, or `nil` when a signal ended it.
      var exitCode: Int32?
      /// What it wrote to its standard output.
      var standardOutput: String
      /// What it wrote to its standard error.
      var standardError: String
    }

    /// Runs the program at `path` with `arguments` (after its own name) and exactly `environment`
    /// (`NAME=value` entries), standard input on `/dev/null`, and waits for it.
    ///
    /// NB: the output is read before the errors, so a program must not write more than a pipe
    /// holds (64 KiB) to its standard error before it ends: enough for the one-line messages this
    /// is for.
    ///
    /// - Throws: `POSIXError` when it cannot be started.
    static func run(
      _ path: String, arguments: [[UInt8]], environment: [[UInt8]]
    ) throws -> Ended {
      let argv = ([Array(path.utf8)] + arguments).map(cString)
      let envp = environment.map(cString)
      defer {
        for pointer in argv + envp { pointer?.deallocate() }
      }
      var errors: [Int32] = [0, 0]
      var output: [Int32] = [0, 0]
      guard pipe(&errors) == 0 else { throw POSIXError(.EIO) }
      guard pipe(&output) == 0 else { throw POSIXError(.EIO) }
      #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
      #else
        var actions = posix_spawn_file_actions_t()
      #endif
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
      var pid: pid_t = 0
      let spawned = posix_spawn(&pid, path, &actions, nil, argv + [nil], envp + [nil])
      close(errors[1])
      close(output[1])
      defer {
        close(errors[0])
        close(output[0])
      }
      guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
      let printed = String(
        decoding: FileHandle(fileDescriptor: output[0]).readDataToEndOfFile(), as: UTF8.self)
      let text = String(
        decoding: FileHandle(fileDescriptor: errors[0]).readDataToEndOfFile(), as: UTF8.self)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      let exited = status & 0x7f == 0
      return Ended(
        exitCode: exited ? (status >> 8) & 0xff : nil, standardOutput: printed, standardError: text)
    }

    private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
      pointer[bytes.count] = 0
      return pointer
    }
  }
#endif
