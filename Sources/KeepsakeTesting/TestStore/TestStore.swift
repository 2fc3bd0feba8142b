import Foundation
import Keepsake
import KeepsakeStore

/// Runs a feature in a test and requires the test to assert everything it does: every change
/// of state, shared state included, every action its effects send, and that its effects finish.
///
/// ```swift
/// @Test func discardingADraft() async {
///   @Shared(.inMemory("drafts")) var drafts: [Draft] = []
///   $drafts.withLock { $0 = [Draft(id: UUID(0), text: "unfinished")] }
///
///   let store = TestStore(initialState: Inbox.State()) { Inbox() }
///
///   await store.send(.draftDiscarded(UUID(0))) {
///     $0.$drafts.withLock { $0 = [] }
///   }
///   await store.receive(.sessionTouched) { $0.$session.withLock { $0 = "touched" } }
///   await store.finish()
/// }
/// ```
///
/// Each assertion closure receives the state as it was after the previous assertion and
/// describes the change; the store compares the result with the real state and reports any
/// difference as a line-by-line diff at the line of the call (a Swift Testing issue, or an
/// `XCTFail` under XCTest).
///
/// Shared state is asserted like any other state. The store tracks every `Shared` reference
/// of the test's `StorageContext`: a change made by the feature, a child feature, an effect or
/// a background task must be asserted, also for keys the state does not contain (the failure
/// names the key, such as `inMemory(session)`). Inside an assertion closure,
/// `$0.$drafts.withLock { ... }` changes the *expected* value, never the live one. Assert a
/// change that no action caused with ``assert(_:fileID:filePath:line:column:)``.
///
/// The feature's `DependencyValues` are the store's ``dependencies``: the test values by
/// default (`UUID(0)`, `UUID(1)`, ... from `\.uuid`, a constant date, manual clocks), made fresh
/// for each store, changed with `withDependencies:` when the store is made or through
/// ``dependencies`` between steps. A dependency the feature reads without a value for tests
/// fails the test at the step that read it (or, for an effect, at the next step), naming it.
///
/// `TestStore` is isolated to the main actor; effects are owned by the store and cancelled when
/// it goes away. End the test with ``finish(timeout:fileID:filePath:line:column:)``, which waits
/// for effects and checks every received action and shared change; a test that forgets is still
/// checked when the store goes away at the end of the test (received actions never asserted,
/// effects still running), reported at the line that made the store. An exhaustive store fails
/// a test that ends with an effect still running, as TCA's does: await `finish()`, or cancel
/// the effect (``skipInFlightEffects(strict:fileID:filePath:line:column:)``) first. An effect
/// already on its way out (its last action received) is given a moment to return.
@MainActor
public final class TestStore<State, Action: Sendable> {
  /// The feature's current state: every action sent or received so far has been reduced.
  public internal(set) var state: State

  /// How much the test must assert; ``Exhaustivity/on`` by default.
  public var exhaustivity: Exhaustivity = .on {
    didSet { syncLedger() }
  }

  /// How long ``receive(_:timeout:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_,_)``
  /// and ``finish(timeout:fileID:filePath:line:column:)`` wait by default.
  ///
  /// A wait counts only time in which tasks could run: a stretch when a loaded machine ran none
  /// (other tests holding every thread of the concurrency pool) starves the awaited effect as
  /// much as the wait, and is not counted, so a timeout fails an effect that does not come, not
  /// one a busy machine delayed.
  public var timeout: Duration = .seconds(1)

  /// The dependencies the feature reads, its effects included; change them between steps.
  ///
  /// ```swift
  /// store.dependencies.date = .constant(Date(timeIntervalSince1970: 60))
  /// await store.send(.saveTapped) { $0.savedAt = Date(timeIntervalSince1970: 60) }
  /// ```
  ///
  /// A change applies to the actions sent and received after it, and to the effects they
  /// start. Reading a default here (`store.dependencies.continuousClock`) gives the value the
  /// feature gets.
  public var dependencies: DependencyValues

  let reducer: Reduce<State, Action>
  var runner: EffectRunner<Action>?
  let tracker: SharedChangeTracker
  let reporter = IssueReporter()
  /// The state as of the last assertion: what the next assertion closure starts from.
  var assertedState: State
  var received: [Received] = [] {
    didSet { syncLedger() }
  }
  /// What the end-of-test check in `deinit` needs, readable off the main actor.
  let ledger = EndOfTestLedger()
  /// Failures of dependencies read by the feature, reported at the next step.
  let dependencyIssues = DependencyIssueLog()
  /// Where the store was made: where a store dropped with work left over is reported.
  let creation: IssueReporter.Location
  var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

  /// A state, rendered when it was reached, with the shared values of that moment.
  struct Observed {
    let state: State
    let text: String
    let sharedKeys: Set<SharedKeyID>
    let shared: [SharedChangeTracker.TrackedValue]
  }

  struct Received {
    let action: Action
    let observed: Observed
  }

  /// A test store that starts from `initialState` and runs the reducer `reducer` builds.
  ///
  /// The store starts tracking the shared values of the current `StorageContext` (the test's
  /// own); values set before this call, such as a seeded `@Shared` key, are the starting point.
  /// The initial state and the reducer are made with the store's ``dependencies``:
  ///
  /// ```swift
  /// let store = TestStore(initialState: Inbox.State()) { Inbox() } withDependencies: {
  ///   $0.date = .constant(Date(timeIntervalSince1970: 60))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: Builds the feature's reducer.
  ///   - prepareDependencies: Changes the store's dependencies: the current scope's values,
  ///     with defaults made fresh for this store.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public init<R: Reducer>(
    initialState: @autoclosure () -> R.State,
    reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    self.creation = IssueReporter.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    self.tracker = SharedChangeTracker.install(in: StorageContext.current)
    var dependencies = DependencyValues.currentForStore
    dependencies.context = DependencyContext(issues: dependencyIssues)
    prepareDependencies(&dependencies)
    self.dependencies = dependencies
    let initialState = dependencies.scope { initialState() }
    self.state = initialState
    self.assertedState = initialState
    self.reducer = dependencies.scope { Reduce(reducer()) }
    self.runner = EffectRunner(
      send: { [weak self] action in self?.didReceive(action) },
      didFinish: { [weak self] in self?.wakeAll() })
    reportDependencyIssues(at: creation)
  }

  deinit {
    // NB: a plain (nonisolated) deinit runs where the last reference is dropped: at the end of
    // the test function, inside the test's task, so `Test.current` is still set and a failure
    // is attributed to the test. (An isolated deinit would hop to the main actor and lose the
    // task-locals, SE-0371.) It reads only Sendable state: the ledger and the issue log.
    let end = ledger.snapshot
    let checks = end.exhaustive && !end.finished
    // Before cancelling: a cancelled effect may end at once, and must still be reported.
    let running = checks ? EndOfTestLedger.stillRunning(end.effects) : []
    for task in end.tasks { task.cancel() }
    tracker.uninstall()
    for message in dependencyIssues.drain() { reporter.report(message, at: creation) }
    guard checks else { return }
    if end.received > 0 {
      reporter.report(TestStoreMessage.actionsNeverAsserted(count: end.received), at: creation)
    }
    if !running.isEmpty {
      reporter.report(TestStoreMessage.effectsRunningAtTheEnd(running), at: creation)
    }
  }

  func syncLedger() {
    let running = runner?.running ?? []
    ledger.update(
      EndOfTestLedger.Snapshot(
        tasks: running.map(\.task), effects: running.map { ($0.origin, $0.completion) },
        received: received.count,
        exhaustive: exhaustivity == .on, finished: ledger.snapshot.finished))
  }

  /// Whether skipped assertions are reported as known issues.
  var showsSkippedAssertions: Bool {
    exhaustivity == .off(showSkippedAssertions: true)
  }

  /// Reports the failures of dependencies read since the last step, at `location`.
  func reportDependencyIssues(at location: IssueReporter.Location) {
    for message in dependencyIssues.drain() { reporter.report(message, at: location) }
  }

  // MARK: - Sending

  /// Sends `action` and asserts how it changes the state.
  ///
  /// The reducer runs with the store's ``dependencies``; values set by a `withDependencies`
  /// scope around this call win over them, for this action and the effects it starts, except
  /// those the store set itself (with `withDependencies:` or through ``dependencies``).
  ///
  /// - Parameters:
  ///   - action: The action to send.
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous assertion
  ///     into the state expected now. Omit it when nothing should change.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  /// - Returns: The work the action started, to await or cancel.
  @discardableResult
  public func send(
    _ action: Action,
    assert updateStateToExpectedResult: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask {
    let location = IssueReporter.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    handlePendingActions(before: TestStoreMessage.Step.sending, at: location)
    ledger.setFinished(false)
    let dependencies = self.dependencies.applying(scope: DependencyValues.scoped)
    let effect = dependencies.scope { reducer.reduce(into: &state, action: action) }
    let observed = observe()
    let parts = start(effect, origin: action, dependencies: dependencies)
    check(actual: observed, closure: updateStateToExpectedResult, at: location)
    reportDependencyIssues(at: location)
    return StoreTask(parts)
  }

  /// Asserts a change of state that no action caused, such as a shared value changed by a
  /// background task or another feature.
  ///
  /// ```swift
  /// store.assert {
  ///   $0.$session.withLock { $0 = nil }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - updateStateToExpectedResult: Changes the state as it was after the previous
  ///     assertion into the state expected now.
  ///   - fileID: The file a failure is reported in; leave the default.
  ///   - filePath: The path of that file; leave the default.
  ///   - line: The line a failure is reported at; leave the default.
  ///   - column: The column a failure is reported at; leave the default.
  public func assert(
    _ updateStateToExpectedResult: (_ state: inout State) throws -> Void,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = IssueReporter.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    handlePendingActions(before: TestStoreMessage.Step.asserting, at: location)
    let actual = observe()
    withoutActuallyEscaping(updateStateToExpectedResult) { closure in
      check(actual: actual, closure: closure, at: location)
    }
    reportDependencyIssues(at: location)
  }
}
