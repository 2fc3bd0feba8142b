import KeepsakeStore

/// Comparing the state an assertion closure expects with the real one, shared state included,
/// and the exhaustivity checks of received actions.
extension TestStore {
  // MARK: - Received actions

  /// Reports the received actions not asserted before `step` (how depends on ``exhaustivity``)
  /// and accepts the state they led to.
  func handlePendingActions(before step: String, at location: IssueReporter.Location) {
    guard !received.isEmpty else { return }
    switch exhaustivity {
    case .on:
      reporter.report(
        TestStoreMessage.unhandledActions(receivedActions, when: "before \(step)"), at: location)
    case .off(showSkippedAssertions: true):
      reporter.reportKnown(
        TestStoreMessage.skipped(
          TestStoreMessage.actionsNotAsserted(receivedActions, before: step)),
        at: location)
    case .off:
      break
    }
    acceptReceivedActions()
  }

  /// Forgets the received actions, accepting the state the last one led to.
  func acceptReceivedActions() {
    guard let last = received.last else { return }
    received = []
    assertedState = last.observed.state
    tracker.setSnapshots(last.observed.shared)
  }

  /// Makes the current state, shared values included, the starting point of the next assertion.
  func acceptCurrentState() {
    let now = observe()
    assertedState = now.state
    tracker.setSnapshots(now.shared)
  }

  /// The received actions not asserted yet, rendered.
  var receivedActions: [String] {
    received.map { ValueDump.render($0.action) }
  }

  // MARK: - State

  func observe() -> Observed {
    let (text, keys) = ValueDump.renderTracingShared(state)
    return Observed(state: state, text: text, sharedKeys: keys, shared: tracker.liveValues())
  }

  /// Compares the state expected after `closure` with `actual`, reports any difference, and
  /// makes `actual` the starting point of the next assertion.
  ///
  /// Not exhaustive, the closure starts from the real state, so only what it says is checked;
  /// showing skipped assertions, a difference from the exhaustive expectation is a known issue.
  func check(
    actual: Observed,
    closure: ((inout State) throws -> Void)?,
    unexpectedChange: String = TestStoreMessage.unexpectedChange,
    at location: IssueReporter.Location
  ) {
    let assertedSnapshots = tracker.snapshots()
    defer {
      assertedState = actual.state
      tracker.setSnapshots(actual.shared)
    }
    let header = closure == nil ? unexpectedChange : TestStoreMessage.changeDoesNotMatch
    switch exhaustivity {
    case .on:
      switch compare(from: assertedState, actual: actual, closure: closure) {
      case .threw(let error):
        reporter.report(TestStoreMessage.closureThrew(error), at: location)
      case .compared(diff: let diff?, _):
        reporter.report(TestStoreMessage.stateDiff(header, diff), at: location)
      case .compared(diff: nil, closureChanged: false) where closure != nil:
        reporter.report(TestStoreMessage.closureMadeNoChange, at: location)
      case .compared:
        break
      }
    case .off(let showSkippedAssertions):
      tracker.setSnapshots(actual.shared)
      switch compare(from: actual.state, actual: actual, closure: closure) {
      case .threw(let error):
        reporter.report(TestStoreMessage.closureThrew(error), at: location)
      case .compared(diff: let diff?, _):
        reporter.report(TestStoreMessage.stateDiff(header, diff), at: location)
      case .compared(diff: nil, _) where showSkippedAssertions:
        tracker.setSnapshots(assertedSnapshots)
        if case .compared(let diff?, _) = compare(
          from: assertedState, actual: actual, closure: closure)
        {
          reporter.reportKnown(
            TestStoreMessage.skipped(
              TestStoreMessage.stateDiff(TestStoreMessage.changeNotAsserted, diff)),
            at: location)
        }
      case .compared:
        break
      }
    }
  }

  private enum Comparison {
    case threw(any Error)
    /// The diff of the expected and the actual state, and whether the closure changed anything.
    case compared(diff: String?, closureChanged: Bool)
  }

  /// Runs `closure` on `start` (and on the tracker's snapshots of shared values) and compares
  /// the result with `actual`.
  private func compare(
    from start: State, actual: Observed, closure: ((inout State) throws -> Void)?
  ) -> Comparison {
    var expected = start
    let before = tracker.assert { ValueDump.renderTracingShared(expected) }
    let sharedBefore = tracker.snapshots()
    if let closure {
      do {
        try tracker.assert { try closure(&expected) }
      } catch {
        return .threw(error)
      }
    }
    let after = tracker.assert { ValueDump.renderTracingShared(expected) }
    let sharedAfter = tracker.snapshots()
    let reachable = after.sharedKeys.union(actual.sharedKeys)
    let (expectedExtra, actualExtra) = SharedRendering.changes(
      expected: sharedAfter, actual: actual.shared, excluding: reachable)
    let diff = ValueDiff.lines(
      expected: after.text + expectedExtra, actual: actual.text + actualExtra)
    let closureChanged =
      before.text != after.text
      || !SharedRendering.changes(expected: sharedBefore, actual: sharedAfter, excluding: []).0
        .isEmpty
    return .compared(diff: diff, closureChanged: closureChanged)
  }
}
