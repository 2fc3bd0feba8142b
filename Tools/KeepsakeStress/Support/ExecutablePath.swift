import Foundation

/// Where the `keepsake-stress` executable is, so campaigns can start it as a child.
public enum ExecutablePath {
  /// The running executable: `/proc/self/exe` where it exists (Linux), else the first argument.
  public static var current: String {
    if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      return resolved
    }
    return URL(fileURLWithPath: CommandLine.arguments.first ?? "keepsake-stress").path
  }

  /// An executable built beside the running one, such as `keepsake-stress` beside a test
  /// bundle in `.build/debug`.
  public static func sibling(named name: String) -> String {
    URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(name).path
  }
}
