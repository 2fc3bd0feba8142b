import Foundation
import Synchronization

/// Keys made under test where no test can be found: a detached task or a plain thread that
/// makes its own `Shared`, as a push or notification handler in app code does.
///
/// Such work shares one in-memory context with every other such work in the process, so tests
/// could see each other's values there; a test in which the key should have been its own would
/// see nothing of it. No test can be found for it (`Test.current` is a task-local, and a
/// detached task or a thread has none), so it cannot be attributed: it is reported, once per
/// place in the code, on standard error at once, and as an issue at the line that made it in
/// the next test that asks for its storage (an issue recorded where no test is current is lost).
/// Keys a hosted app makes before any test starts are not reported: every hosted suite would
/// fail on them.
@usableFromInline
enum UnattributedKeys {
  private static let reported = Mutex<Set<CallSite>>([])
  /// Places whose report a test of this mechanism takes instead of the test run: by place, so
  /// other tests running meanwhile are not affected.
  private static let expected = Mutex<[String: @Sendable (String) -> Void]>([:])

  /// Reports waiting for a test's task: an issue recorded where no test is current is lost
  /// (Swift Testing finds the run to report to through a task-local too).
  private static let pending = Mutex<[(message: String, site: CallSite)]>([])
  private static let hasPending = Atomic(false)

  /// Reports `keyID`, made at `site` in `context`, unless that place was reported already or
  /// the context has seen no test start.
  @usableFromInline
  static func report(_ keyID: SharedKeyID, in context: StorageContext, at site: CallSite) {
    report(keyID, at: site, testsStarted: context.testsHaveStarted())
  }

  static func report(_ keyID: SharedKeyID, at site: CallSite, testsStarted: Bool) {
    guard testsStarted else { return }
    let message = message(keyID, at: site)
    if let expectation = expected.withLock({ $0[site.description] }) {
      expectation(message)
      return
    }
    guard reported.withLock({ $0.insert(site).inserted }) else { return }
    // Said now on standard error; failed in the next test that asks for its storage, at the
    // line that made the key.
    RuntimeWarning.emit(message)
    pending.withLock { $0.append((message, site)) }
    hasPending.store(true, ordering: .releasing)
  }

  /// Records the waiting reports as issues, from a task where a test is current.
  static func reportPending() {
    guard hasPending.load(ordering: .acquiring) else { return }
    let reports = pending.withLock { pending in
      defer { pending = [] }
      return pending
    }
    hasPending.store(false, ordering: .releasing)
    recordIssues(reports)
  }

  /// Records each report as an issue of the running test, at the line that made the key.
  static func recordIssues(_ reports: [(message: String, site: CallSite)]) {
    guard let reporting = TestSupportHook.issueReporting else { return }
    for report in reports {
      reporting.reportIssue(
        report.message, fileID: report.site.fileID, filePath: report.site.filePath,
        line: report.site.line, column: report.site.column)
    }
  }

  /// Sends the reports of keys made at `fileID:line` to `receive` instead of the test run, until
  /// the returned token is dropped (for this mechanism's own tests).
  static func expect(
    fileID: StaticString, line: UInt, _ receive: @escaping @Sendable (String) -> Void
  ) -> ExpectedReport {
    let place = "\(fileID):\(line)"
    expected.withLock { $0[place] = receive }
    return ExpectedReport { expected.withLock { $0[place] = nil } }
  }

  /// Ends an expectation of ``expect(fileID:line:_:)`` when dropped.
  final class ExpectedReport: Sendable {
    private let end: @Sendable () -> Void
    init(end: @escaping @Sendable () -> Void) { self.end = end }
    deinit { end() }
  }

  static func message(_ keyID: SharedKeyID, at site: CallSite) -> String {
    "The key \(keyID) was made at \(site) while tests run, where no test can be found (a "
      + "detached task or a plain thread has no current test). It uses storage shared by all "
      + "such work, so tests can see each other's values through it. Make the Shared in the "
      + "test's task and hand it to the detached work (a Shared keeps its test's storage), or "
      + "capture `let context = StorageContext.current` in the test and run the work in "
      + "`StorageContext.withValue(context) { ... }`."
  }
}
