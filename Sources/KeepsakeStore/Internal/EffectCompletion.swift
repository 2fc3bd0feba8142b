import Synchronization

/// Whether an effect's work has returned, readable from any thread.
package final class EffectCompletion: Sendable {
  private let finished = Atomic(false)

  init() {}

  /// Whether the effect's work has returned.
  package var isFinished: Bool { finished.load(ordering: .acquiring) }

  /// Runs an effect's work and records that it returned, off the main actor.
  ///
  /// NB: nonisolated, so the record is made on the executor the work ends on: the task that
  /// runs an effect is the main actor's, and a main actor busy with the end of a test must not
  /// keep a finished effect from saying so.
  nonisolated func run<Action: Sendable>(
    _ operation: @Sendable (Send<Action>) async -> Void, _ send: Send<Action>
  ) async {
    await operation(send)
    finished.store(true, ordering: .releasing)
  }
}
