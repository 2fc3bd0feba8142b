import KeepsakeStore

extension TestStore {
  /// Waits for the next action an effect sent, checks it is `expectedAction` and asserts how it
  /// changed the state.
  ///
  /// - Parameters:
  ///   - expectedAction: The action expected next.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive(
    _ expectedAction: Action,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      description: ValueDump.render(expectedAction), matching: { $0 == expectedAction },
      mismatch: { self.unexpectedAction($0, expected: expectedAction) },
      timeout: timeout, closure: updateStateToExpectedResult,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for the next action an effect sent, checks it matches `isMatching` and asserts how
  /// it changed the state.
  ///
  /// - Parameters:
  ///   - isMatching: Whether a received action is the one expected.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive(
    _ isMatching: (_ action: Action) -> Bool,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      description: TestStoreMessage.actionMatchingPredicate, matching: isMatching,
      mismatch: { self.unexpectedAction($0) }, timeout: timeout,
      closure: updateStateToExpectedResult,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  // MARK: - By case

  /// Waits for the next action an effect sent, checks it is of the enum case `actionCase`,
  /// whatever its payload, and asserts how it changed the state.
  ///
  /// Name the case by its constructor, as `Scope` does; with no macros, the case is
  /// recognized by reflection, so the action need not be `Equatable`:
  ///
  /// ```swift
  /// await store.send(.refreshTapped) { $0.isRefreshing = true }
  /// await store.receive(Feed.Action.loaded) {
  ///   $0.isRefreshing = false
  ///   $0.$tracks.withLock { $0 = Track.samples }
  /// }
  /// ```
  ///
  /// For a case with several associated values, pass an extractor instead:
  /// ``receive(_:timeout:assert:fileID:filePath:line:column:)-((Action)->Payload?,_,_,_,_,_,_)``.
  ///
  /// - Parameters:
  ///   - actionCase: The case's constructor, such as `Feed.Action.loaded`.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive<Payload>(
    _ actionCase: (Payload) -> Action,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      { ActionReflection.extract($0, embeddedBy: actionCase) }, timeout: timeout,
      assert: updateStateToExpectedResult, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Waits for the next action an effect sent, checks it is the enum case `actionCase` with
  /// `expectedPayload`, and asserts how it changed the state.
  ///
  /// ```swift
  /// await store.receive(Inbox.Action.sessionRecorded, 1) {
  ///   $0.$session.withLock { $0 = Session(changes: 1, lastChange: "discarded 00000000") }
  /// }
  /// ```
  ///
  /// A different action fails with a diff of the expected and the received action.
  ///
  /// - Parameters:
  ///   - actionCase: The case's constructor, such as `Inbox.Action.sessionRecorded`.
  ///   - expectedPayload: The payload the action must carry.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive<Payload: Equatable>(
    _ actionCase: (Payload) -> Action,
    _ expectedPayload: Payload,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let expectedAction = actionCase(expectedPayload)
    await receive(
      description: ValueDump.render(expectedAction),
      matching: { ActionReflection.extract($0, embeddedBy: actionCase) == expectedPayload },
      mismatch: { self.unexpectedAction($0, expected: expectedAction) },
      timeout: timeout, closure: updateStateToExpectedResult,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for the next action an effect sent, checks `extract` finds a payload in it, and
  /// asserts how it changed the state.
  ///
  /// `extract` returns the payload of the expected case, or `nil` for any other action. A key
  /// path works when the action has a property per case, the way case paths read:
  ///
  /// ```swift
  /// extension Feed.Action {
  ///   var loaded: [Track]? { if case .loaded(let tracks) = self { tracks } else { nil } }
  /// }
  ///
  /// await store.receive(\.loaded) { $0.isRefreshing = false }
  /// await store.receive({ if case .moved(let from, let to) = $0 { (from, to) } else { nil } })
  /// ```
  ///
  /// - Parameters:
  ///   - extract: The payload of the expected case, or `nil`.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive<Payload>(
    _ extract: (_ action: Action) -> Payload?,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      description: TestStoreMessage.actionOfCase(payloadType: ValueDump.typeName(Payload.self)),
      matching: { extract($0) != nil }, mismatch: { self.unexpectedAction($0) },
      timeout: timeout, closure: updateStateToExpectedResult,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for the next action an effect sent, checks `extract` finds `expectedPayload` in it,
  /// and asserts how it changed the state.
  ///
  /// ```swift
  /// await store.receive(\.loaded, Track.samples) { $0.isRefreshing = false }
  /// ```
  ///
  /// An action of the expected case with another payload fails with a diff of the payloads.
  ///
  /// - Parameters:
  ///   - extract: The payload of the expected case, or `nil`.
  ///   - expectedPayload: The payload the action must carry.
  ///   - timeout: How long to wait; ``timeout`` when `nil`.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected after the action.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func receive<Payload: Equatable>(
    _ extract: (_ action: Action) -> Payload?,
    _ expectedPayload: Payload,
    timeout: Duration? = nil,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      description: TestStoreMessage.actionOfCase(payload: ValueDump.render(expectedPayload)),
      matching: { extract($0) == expectedPayload },
      mismatch: { action in
        guard let payload = extract(action), let diff = ValueDiff.diff(expectedPayload, payload)
        else { return self.unexpectedAction(action) }
        return TestStoreMessage.unexpectedPayload(diff: diff)
      },
      timeout: timeout, closure: updateStateToExpectedResult,
      at: IssueReporter.Location(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  // MARK: - The one body

  /// Waits for a received action, checks it with `matching` and asserts the state it led to:
  /// what every `receive` overload does, given what it expects.
  private func receive(
    description: String,
    matching: (Action) -> Bool,
    mismatch: (Action) -> String,
    timeout: Duration?,
    closure: ((inout State) throws -> Void)?,
    at location: IssueReporter.Location
  ) async {
    defer { reportDependencyIssues(at: location) }
    let timeout = timeout ?? self.timeout
    let exhaustive = exhaustivity == .on
    await waitForAction(exhaustive: exhaustive, timeout: timeout, matching: matching)
    let index = exhaustive ? received.indices.first : received.firstIndex { matching($0.action) }
    guard let index else {
      reporter.report(
        TestStoreMessage.noActionReceived(
          description, running: runningEffects.map(\.origin), timeout: timeout),
        at: location)
      return
    }
    if index > 0, showsSkippedAssertions {
      reporter.reportKnown(
        TestStoreMessage.skipped(
          TestStoreMessage.actionsSkipped(
            received[..<index].map { ValueDump.render($0.action) }, before: description)),
        at: location)
    }
    let next = received[index]
    received.removeFirst(index + 1)
    if !matching(next.action) {
      reporter.report(mismatch(next.action), at: location)
    }
    check(actual: next.observed, closure: closure, at: location)
  }

  private func unexpectedAction(_ action: Action, expected: Action? = nil) -> String {
    guard let expected, let diff = ValueDiff.diff(expected, action) else {
      return TestStoreMessage.unexpectedAction(ValueDump.render(action))
    }
    return TestStoreMessage.unexpectedAction(diff: diff)
  }
}
