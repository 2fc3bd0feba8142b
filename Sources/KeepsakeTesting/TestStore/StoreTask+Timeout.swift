import KeepsakeStore
import Synchronization

extension StoreTask {
  /// Waits for the work to finish, and fails the test, naming the effects still running, when
  /// it does not finish within `timeout`.
  ///
  /// ```swift
  /// await store.send(.refreshTapped) { $0.isRefreshing = true }.finish(timeout: .seconds(1))
  /// ```
  ///
  /// The failure lists each effect still running with the action whose effect started it. The
  /// work goes on running after a timeout (cancel it, or let its store cancel it when it goes).
  /// Nonisolated: call it from any executor.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait, counting only time in which tasks could run (a stretch
  ///     when the machine ran none, under load, is not counted).
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func finish(
    timeout: Duration,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    guard let work else { return }
    let outcome = FirstOutcome()
    let finished = await withCheckedContinuation { continuation in
      outcome.start(continuation)
      let timer = Task {
        await RunnableTime.sleep(for: timeout)
        guard !Task.isCancelled else { return }
        outcome.resume(false)
      }
      Task {
        await finish()
        timer.cancel()
        outcome.resume(true)
      }
    }
    guard !finished else { return }
    let running = work.running
    IssueReporter().report(
      "The task did not finish within \(timeout): \(running.count) effect(s) still running. "
        + "Started by:\n\n"
        + running.map { "  " + $0.origin.replacingNewlines(with: "\n  ") }.joined(
          separator: "\n"),
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}

/// Resumes a continuation once, with whichever outcome comes first.
private final class FirstOutcome: Sendable {
  private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

  func start(_ continuation: CheckedContinuation<Bool, Never>) {
    self.continuation.withLock { $0 = continuation }
  }

  func resume(_ finished: Bool) {
    continuation.withLock { $0.take() }?.resume(returning: finished)
  }
}

extension String {
  fileprivate func replacingNewlines(with replacement: String) -> String {
    split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
