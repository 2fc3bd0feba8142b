import Testing

@testable import KeepsakeTesting

/// Every text a `TestStore` reports, word for word.
///
/// The text is what a developer reads when a test fails. The failure demonstrations in
/// KeepsakeStoreTests show where each one is reported.
@Suite("TestStore messages")
struct TestStoreMessageTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let message: String
    let expected: String

    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "unhandled actions",
      message: TestStoreMessage.unhandledActions(
        [".a", ".b(1)"], when: "before \(TestStoreMessage.Step.sending)"),
      expected: "Must handle 2 received action(s) before sending an action:\n\n  .a\n  .b(1)"),
    Case(
      name: "actions not asserted by a non-exhaustive store",
      message: TestStoreMessage.actionsNotAsserted([".a"], before: TestStoreMessage.Step.finishing),
      expected: "1 received action(s) were not asserted before finishing:\n\n  .a"),
    Case(
      name: "actions not asserted before asserting",
      message: TestStoreMessage.actionsNotAsserted([".a"], before: TestStoreMessage.Step.asserting),
      expected: "1 received action(s) were not asserted before asserting:\n\n  .a"),
    Case(
      name: "actions left when leaving withExhaustivity",
      message: TestStoreMessage.unhandledActions(
        [".a"], when: "before \(TestStoreMessage.Step.leavingWithExhaustivity)"),
      expected: "Must handle 1 received action(s) before leaving withExhaustivity:\n\n  .a"),
    Case(
      name: "actions never asserted when the store goes away",
      message: TestStoreMessage.actionsNeverAsserted(count: 3),
      expected:
        "3 received action(s) were never asserted at the end of the test (assert them with "
        + "`await store.receive(...)`, and end the test with `await store.finish()`)."),
    Case(
      name: "actions skipped before the expected one",
      message: TestStoreMessage.actionsSkipped([".a", ".b"], before: ".c"),
      expected: "2 received action(s) skipped before .c:\n\n  .a\n  .b"),
    Case(
      name: "actions skipped on request",
      message: TestStoreMessage.actionsSkipped([".a"]),
      expected: "1 received action(s) were skipped:\n\n  .a"),
    Case(
      name: "no actions to skip",
      message: TestStoreMessage.noActionsToSkip,
      expected: "There were no received actions to skip."),
    Case(
      name: "an action matching a predicate",
      message: TestStoreMessage.actionMatchingPredicate,
      expected: "an action matching the predicate"),
    Case(
      name: "an action of a case",
      message: TestStoreMessage.actionOfCase(payloadType: "[Track]"),
      expected: "an action of the expected case (with a [Track])"),
    Case(
      name: "an action of a case with a payload",
      message: TestStoreMessage.actionOfCase(payload: "42"),
      expected: "an action of the expected case with 42"),
    Case(
      name: "no action, no effects",
      message: TestStoreMessage.noActionReceived(".loaded", running: [], timeout: .seconds(1)),
      expected: "Expected to receive .loaded, but none was received and no effects are running."),
    Case(
      name: "no action in time",
      message: TestStoreMessage.noActionReceived(
        ".loaded", running: [".refresh", ".tick"], timeout: .seconds(1)),
      expected:
        "Expected to receive .loaded, but none was received within 1.0 seconds (effects still "
        + "running, started by .refresh, .tick)."),
    Case(
      name: "an unexpected action",
      message: TestStoreMessage.unexpectedAction(".b(\n  1\n)"),
      expected: "Received an unexpected action:\n\n  .b(\n    1\n  )"),
    Case(
      name: "an unexpected action, with a diff",
      message: TestStoreMessage.unexpectedAction(diff: "\u{2212}.a\n+.b"),
      expected:
        "Received an unexpected action:\n\n  \u{2212}.a\n  +.b\n\n(Expected: \u{2212}, Received: +)"
    ),
    Case(
      name: "another payload",
      message: TestStoreMessage.unexpectedPayload(diff: "\u{2212}1\n+2"),
      expected:
        "Received an action of the expected case with another payload:\n\n  \u{2212}1\n  +2\n\n"
        + "(Expected: \u{2212}, Received: +)"),
    Case(
      name: "effects still running",
      message: TestStoreMessage.effectsStillRunning([".start", ".tick"], waited: .seconds(1)),
      expected:
        "2 effect(s) still running after waiting 1.0 seconds; every effect must finish (or be "
        + "cancelled) before the end of the test. Started by:\n\n  .start\n  .tick"),
    Case(
      name: "effects cancelled",
      message: TestStoreMessage.effectsCancelled([".start"]),
      expected: "1 in-flight effect(s) were cancelled. Started by:\n\n  .start"),
    Case(
      name: "no effects to skip",
      message: TestStoreMessage.noEffectsToSkip,
      expected: "There were no in-flight effects to skip."),
    Case(
      name: "an unexpected change",
      message: TestStoreMessage.stateDiff(
        TestStoreMessage.unexpectedChange, "  State(\n\u{2212}   count: 0\n+   count: 1\n  )"),
      expected:
        "State was not expected to change, but a change occurred:\n\n"
        + "    State(\n  \u{2212}   count: 0\n  +   count: 1\n    )\n\n(Expected: \u{2212}, Actual: +)"
    ),
    Case(
      name: "a change not asserted before finishing",
      message: TestStoreMessage.unassertedChangeAtFinish,
      expected:
        "State changed after the last assertion, but the change was not asserted (assert it with "
        + "`store.assert { ... }`):"),
    Case(
      name: "a change that does not match",
      message: TestStoreMessage.changeDoesNotMatch,
      expected: "A state change does not match expectation:"),
    Case(
      name: "a change not asserted by a non-exhaustive store",
      message: TestStoreMessage.skipped(
        TestStoreMessage.stateDiff(TestStoreMessage.changeNotAsserted, "\u{2212}0\n+1")),
      expected:
        "Skipped assertion (the store is not exhaustive): a state change was not asserted:\n\n"
        + "  \u{2212}0\n  +1\n\n(Expected: \u{2212}, Actual: +)"),
    Case(
      name: "a closure that changed nothing",
      message: TestStoreMessage.closureMadeNoChange,
      expected:
        "Expected state to change, but it did not: the assertion closure made no change. If no "
        + "change is expected, omit the closure."),
    Case(
      name: "a closure that threw",
      message: TestStoreMessage.closureThrew(Oops()),
      expected: "The assertion closure threw an error: Oops()"),
  ]

  @Test("Each message reads exactly as written", arguments: cases)
  func message(_ testCase: Case) {
    #expect(testCase.message == testCase.expected)
  }

  struct Oops: Error {}
}
