import KeepsakeStore

extension TestStore {
  // MARK: - Skipping

  /// Skips the actions received so far, accepting the state they led to.
  ///
  /// Showing skipped assertions (``Exhaustivity/off(showSkippedAssertions:)``), the skipped
  /// actions are listed as a known issue.
  ///
  /// - Parameters:
  ///   - strict: Whether to fail when there is nothing to skip.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func skipReceivedActions(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await skip(
      received.map { ValueDump.render($0.action) }, strict: strict,
      noneMessage: TestStoreMessage.noActionsToSkip,
      skippedMessage: TestStoreMessage.actionsSkipped,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column)
    ) { acceptReceivedActions() }
  }

  /// Cancels every effect still running, so the test may end without waiting for them.
  ///
  /// ```swift
  /// await store.send(.startTimer) { $0.isTimerRunning = true }
  /// await store.skipInFlightEffects()
  /// await store.finish()
  /// ```
  ///
  /// Showing skipped assertions (``Exhaustivity/off(showSkippedAssertions:)``), the skipped
  /// effects are listed as a known issue.
  ///
  /// - Parameters:
  ///   - strict: Whether to fail when no effect is running.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await skip(
      runningEffects.map(\.origin), strict: strict, noneMessage: TestStoreMessage.noEffectsToSkip,
      skippedMessage: TestStoreMessage.effectsCancelled,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column)
    ) {
      runner?.cancelAll()
      wakeAll()
    }
  }

  /// The one body of both skips: lets what is about to arrive arrive, reports that there was
  /// nothing to skip (when `strict`) or lists what is skipped (when showing skipped
  /// assertions), then skips it with `accept`.
  private func skip(
    _ items: @autoclosure () -> [String],
    strict: Bool,
    noneMessage: String,
    skippedMessage: ([String]) -> String,
    at location: IssueReporter.Location,
    accept: () -> Void
  ) async {
    await Task.yield()
    let items = items()
    if items.isEmpty {
      if strict { reporter.report(noneMessage, at: location) }
    } else if showsSkippedAssertions {
      reporter.reportKnown(TestStoreMessage.skipped(skippedMessage(items)), at: location)
    }
    accept()
    reportDependencyIssues(at: location)
  }

  // MARK: - Exhaustivity

  /// Runs `operation` with `exhaustivity`, then goes back to the store's own.
  ///
  /// ```swift
  /// await store.withExhaustivity(.off) {
  ///   await store.send(.onAppear)
  ///   await store.receive(Inbox.Action.loaded)
  /// }
  /// await store.send(.draftDiscarded(UUID(0))) { $0.$drafts.withLock { $0 = [] } }
  /// ```
  ///
  /// Leaving a non-exhaustive block for an exhaustive store, what the block left unasserted
  /// (received actions, changes of state) is accepted, so exhaustive checking resumes from the
  /// state as it is.
  ///
  /// - Parameters:
  ///   - exhaustivity: How much `operation` must assert.
  ///   - operation: The steps to run with it.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  /// - Returns: What `operation` returns.
  @discardableResult
  public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity,
    operation: @MainActor () async throws -> R,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async rethrows -> R {
    let previous = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer {
      if exhaustivity != .on, previous == .on {
        handlePendingActions(
          before: TestStoreMessage.Step.leavingWithExhaustivity,
          at: IssueReporter.Location(
            fileID: fileID, filePath: filePath, line: line, column: column))
        acceptCurrentState()
      }
      self.exhaustivity = previous
    }
    return try await operation()
  }

  // MARK: - Finishing

  /// Waits for every effect to finish and, when exhaustive, checks that every received action
  /// and every change of shared state was asserted.
  ///
  /// Showing skipped assertions (``Exhaustivity/off(showSkippedAssertions:)``), what an
  /// exhaustive store would have failed on is listed as known issues.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = IssueReporter.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let timeout = timeout ?? self.timeout
    await waitForEffects(timeout: timeout)
    // The end-of-test check in deinit is done here, with the caller's line.
    defer {
      ledger.setFinished(true)
      reportDependencyIssues(at: location)
    }
    guard exhaustivity == .on || showsSkippedAssertions else { return }
    let running = runningEffects
    if !running.isEmpty {
      let message = TestStoreMessage.effectsStillRunning(running.map(\.origin), waited: timeout)
      if exhaustivity == .on {
        reporter.report(message, at: location)
      } else {
        reporter.reportKnown(TestStoreMessage.skipped(message), at: location)
      }
    }
    handlePendingActions(before: TestStoreMessage.Step.finishing, at: location)
    check(
      actual: observe(), closure: nil,
      unexpectedChange: TestStoreMessage.unassertedChangeAtFinish,
      at: location)
  }
}
