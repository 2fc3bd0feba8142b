import Synchronization

/// What a `TestStore` still has outstanding, kept where its nonisolated `deinit` can read it.
final class EndOfTestLedger: Sendable {
  struct Snapshot: Sendable {
    /// The tasks of effects still running, to cancel.
    var tasks: [Task<Void, Never>] = []
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
}
