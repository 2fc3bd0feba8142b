/// Every text a ``TestStore`` reports, in one place.
///
/// The text is the product: it is what a developer reads when a test fails, so each one is
/// pinned word for word by `TestStoreMessageTests`. Actions, payloads and effect origins arrive
/// already rendered (`ValueDump.render`), one string each.
enum TestStoreMessage {
  /// The steps before which received actions must have been asserted, as messages name them.
  enum Step {
    static let sending = "sending an action"
    static let asserting = "asserting"
    static let finishing = "finishing"
    static let leavingWithExhaustivity = "leaving withExhaustivity"
  }

  // MARK: - Received actions

  /// Received actions left unasserted when an exhaustive store takes its next step.
  static func unhandledActions(_ actions: [String], when: String) -> String {
    "Must handle \(actions.count) received action(s) \(when):\n\n" + list(actions)
  }

  /// Received actions a non-exhaustive store let pass before its next step.
  static func actionsNotAsserted(_ actions: [String], before step: String) -> String {
    "\(actions.count) received action(s) were not asserted before \(step):\n\n" + list(actions)
  }

  /// Received actions still unasserted when the store goes away without `finish()`.
  static func actionsNeverAsserted(count: Int) -> String {
    "\(count) received action(s) were never asserted at the end of the test "
      + "(assert them with `await store.receive(...)`, and end the test with "
      + "`await store.finish()`)."
  }

  /// Received actions a non-exhaustive `receive` passed over to find the one it expected.
  static func actionsSkipped(_ actions: [String], before description: String) -> String {
    "\(actions.count) received action(s) skipped before \(description):\n\n" + list(actions)
  }

  /// Received actions `skipReceivedActions()` accepted.
  static func actionsSkipped(_ actions: [String]) -> String {
    "\(actions.count) received action(s) were skipped:\n\n" + list(actions)
  }

  static let noActionsToSkip = "There were no received actions to skip."

  // MARK: - Receiving

  /// What `receive(where:)` expects, for the failure that says none came.
  static let actionMatchingPredicate = "an action matching the predicate"

  /// What `receive` by case expects: `payloadType` is the case's payload type.
  static func actionOfCase(payloadType: String) -> String {
    "an action of the expected case (with a \(payloadType))"
  }

  /// What `receive` by case and payload expects.
  static func actionOfCase(payload: String) -> String {
    "an action of the expected case with \(payload)"
  }

  /// No action came: none at all once effects ended, or none within `timeout` while the effects
  /// started by `running` were still going.
  static func noActionReceived(
    _ description: String, running: [String], timeout: Duration
  ) -> String {
    let why =
      running.isEmpty
      ? "none was received and no effects are running"
      : "none was received within \(timeout) (effects still running, started by "
        + running.joined(separator: ", ") + ")"
    return "Expected to receive \(description), but \(why)."
  }

  /// An action other than the expected one came: `action` rendered, or its diff from the
  /// expected action.
  static func unexpectedAction(_ action: String) -> String {
    "Received an unexpected action:\n\n" + indent(action)
  }

  /// An action other than the expected one came; `diff` is expected against received.
  static func unexpectedAction(diff: String) -> String {
    "Received an unexpected action:\n\n" + indent(diff) + "\n\n" + receivedLegend
  }

  /// The expected case came with another payload; `diff` is expected against received.
  static func unexpectedPayload(diff: String) -> String {
    "Received an action of the expected case with another payload:\n\n" + indent(diff) + "\n\n"
      + receivedLegend
  }

  // MARK: - Effects

  /// Effects still running at `finish()`, listed by the action that started each.
  static func effectsStillRunning(_ origins: [String], waited: Duration) -> String {
    "\(origins.count) effect(s) still running after waiting \(waited); every effect must finish "
      + "(or be cancelled) before the end of the test. Started by:\n\n" + list(origins)
  }

  /// Effects still running when a test ended without `finish()`, listed by the action that
  /// started each.
  static func effectsRunningAtTheEnd(_ origins: [String]) -> String {
    "\(origins.count) effect(s) were still running at the end of the test; they were cancelled. "
      + "Every effect must finish before the test ends: await store.finish(), or cancel them "
      + "with await store.skipInFlightEffects(). Started by:\n\n" + list(origins)
  }

  /// Effects `skipInFlightEffects()` cancelled, listed by the action that started each.
  static func effectsCancelled(_ origins: [String]) -> String {
    "\(origins.count) in-flight effect(s) were cancelled. Started by:\n\n" + list(origins)
  }

  static let noEffectsToSkip = "There were no in-flight effects to skip."

  // MARK: - State

  /// The header of a diff after a step that was given no assertion closure.
  static let unexpectedChange = "State was not expected to change, but a change occurred:"

  /// The header of a diff at `finish()`: a change no step asserted.
  static let unassertedChangeAtFinish =
    "State changed after the last assertion, but the change was not asserted (assert it with "
    + "`store.assert { ... }`):"

  /// The header of a diff between an assertion closure's result and the real state.
  static let changeDoesNotMatch = "A state change does not match expectation:"

  /// The header of a diff a non-exhaustive store shows as skipped.
  static let changeNotAsserted = "a state change was not asserted:"

  static let closureMadeNoChange =
    "Expected state to change, but it did not: the assertion closure made no change. "
    + "If no change is expected, omit the closure."

  static func closureThrew(_ error: any Error) -> String {
    "The assertion closure threw an error: \(error)"
  }

  /// A line-by-line diff of the expected and the actual state under `header`.
  static func stateDiff(_ header: String, _ diff: String) -> String {
    "\(header)\n\n\(indent(diff))\n\n(Expected: \u{2212}, Actual: +)"
  }

  // MARK: - Non-exhaustive stores

  /// `message`, marked as what a non-exhaustive store skipped.
  static func skipped(_ message: String) -> String {
    "Skipped assertion (the store is not exhaustive): \(message)"
  }

  // MARK: - Layout

  private static let receivedLegend = "(Expected: \u{2212}, Received: +)"

  /// `items`, one per line, indented.
  static func list(_ items: [String]) -> String {
    items.map(indent).joined(separator: "\n")
  }

  /// `text` with every line indented by two spaces.
  static func indent(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { "  " + $0 }.joined(separator: "\n")
  }
}
