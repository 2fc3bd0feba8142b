#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// A command-line program names files with what it was given: its arguments and environment. The
// system gives them as bytes, which are not always valid UTF-8, and `CommandLine.arguments` and
// `ProcessInfo.environment` turn each bad byte into U+FFFD: a look-alike name, which would open
// (or create) another file than the one the user named.
extension CommandLine {
  /// The program's arguments after its name, each exactly as the system gave it.
  ///
  /// Where ``CommandLine/arguments`` turns a byte that is not UTF-8 into U+FFFD (so a program
  /// given `caf\xE9.json` from a Latin-1 system would open or create a look-alike file), this
  /// refuses the argument: read a command line with it when the arguments name files.
  ///
  /// - Throws: ``UnrepresentableTextError`` for the first argument that is not valid UTF-8.
  public static func exactArguments() throws(UnrepresentableTextError) -> [String] {
    var arguments: [String] = []
    for index in 1..<Int(argc) {
      guard let pointer = unsafeArgv[index] else { continue }
      guard let argument = PathBytes.string(cString: pointer) else {
        throw UnrepresentableTextError(
          what: "argument \(index)", bytes: PathBytes.escaped(PathBytes.bytes(cString: pointer)))
      }
      arguments.append(argument)
    }
    return arguments
  }

  /// The value of the environment variable `name`, exactly as the system has it; `nil` when it
  /// is not set.
  ///
  /// - Throws: ``UnrepresentableTextError`` when it is not valid UTF-8.
  public static func exactEnvironmentValue(
    _ name: String
  ) throws(UnrepresentableTextError) -> String? {
    guard let pointer = getenv(name) else { return nil }
    guard let value = PathBytes.string(cString: pointer) else {
      throw UnrepresentableTextError(
        what: "$\(name)", bytes: PathBytes.escaped(PathBytes.bytes(cString: pointer)))
    }
    return value
  }
}

/// A command-line argument or an environment variable that is not valid UTF-8, which a program
/// refuses rather than open a look-alike file (see `CommandLine.exactArguments()`).
public struct UnrepresentableTextError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Which one: `argument 2`, `$HOME`.
  public let what: String
  /// Its bytes, `\xNN` for those that are not UTF-8.
  public let bytes: String

  public var description: String {
    "\(what) (\(bytes)) is not valid UTF-8, so it cannot be taken exactly and nothing was done; "
      + "if it names a file or folder, rename that to a UTF-8 name (for example with convmv)"
  }
}
