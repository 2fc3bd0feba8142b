import Foundation
import Synchronization

/// A problem in how the app uses Keepsake that is not an error of any one call, such as a
/// change dropped because its part is gone: said on standard error, and shown to whatever
/// listens in the task (tests).
enum RuntimeWarning {
  @TaskLocal private static var listener: (@Sendable (String) -> Void)?

  /// Says `message` on standard error, prefixed with "Keepsake: ", and tells the listener of
  /// the current task, if any.
  ///
  /// With `failingTheTest`, a test process (with `KeepsakeTesting` linked) also records it as an
  /// issue of the running test, at `site` when given, unless the task listens for warnings:
  /// for mistakes a test must not pass with, which standard error alone would let through.
  static func emit(
    _ message: String, failingTheTest: Bool = false, site: CallSite? = nil
  ) {
    if let listener {
      listener(message)
    } else if failingTheTest, let reporting = TestSupportHook.issueReporting {
      reporting.reportIssue(
        message, fileID: site?.fileID, filePath: site?.filePath, line: site?.line ?? 0,
        column: site?.column ?? 0)
    }
    FileHandle.standardError.write(Data("Keepsake: \(message)\n".utf8))
  }

  /// Runs `body` and returns it with the warnings emitted in its task meanwhile.
  static func collecting<R>(_ body: () throws -> R) rethrows -> (R, [String]) {
    let warnings = Mutex<[String]>([])
    let listen: @Sendable (String) -> Void = { message in warnings.withLock { $0.append(message) } }
    let result = try $listener.withValue(listen, operation: body)
    return (result, warnings.withLock { $0 })
  }
}
