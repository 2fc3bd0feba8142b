import Foundation
import KeepsakeStore
import Synchronization

/// What a `TestStore` still has outstanding, kept where its nonisolated `deinit` can read it.
final class EndOfTestLedger: Sendable {
  struct Snapshot: Sendable {
    /// The tasks of effects still running, to cancel.
    var tasks: [Task<Void, Never>] = []
    /// The effects still running, each with the action that started it.
    var effects: [(origin: String, completion: EffectCompletion)] = []
    /// How many received actions were not asserted.
    var received = 0
    var exhaustive = true
    /// Whether `finish()` ran since the last `send`.
    var finished = false
  }

  private let state = Mutex(Snapshot())

  var snapshot: Snapshot { state.withLock { $0 } }

  func update(_ snapshot: Snapshot) { state.withLock { $0 = snapshot } }

  func setFinished(_ finished: Bool) { state.withLock { $0.finished = finished } }

  /// How long the end-of-test check lets an effect finish that is already on its way out.
  ///
  /// NB: an effect ends one hop after its last `send`: the test, woken by that action, can reach
  /// its end before the effect's task returns. Such an effect finishes within microseconds; one
  /// that waits on a clock, a stream or the network does not. The grace is spent only when an
  /// effect is still running, so a passing test never waits; it is long enough for a loaded
  /// machine to schedule the effect's last step, and it never decides whether a test passes
  /// except for an effect that is truly still running when the test ends.
  static let grace: Duration = .seconds(1)

  /// The origins of the effects that are still running after waiting at most ``grace`` for
  /// them to finish, polling (a `deinit` cannot suspend).
  static func stillRunning(
    _ effects: [(origin: String, completion: EffectCompletion)]
  ) -> [String] {
    var running = effects.filter { !$0.completion.isFinished }
    let deadline = ContinuousClock.now.advanced(by: grace)
    while !running.isEmpty, ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.001)
      running.removeAll { $0.completion.isFinished }
    }
    return running.map(\.origin)
  }
}
