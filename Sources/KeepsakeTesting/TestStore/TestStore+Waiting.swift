import Foundation
import KeepsakeStore
import Synchronization

/// Running effects, reducing the actions they send, and waiting for either.
///
/// The store never polls: a waiter suspends on a continuation that `wakeAll()` resumes when an
/// effect sends an action or finishes, or that a timer resumes when the time is up.
extension TestStore {
  // MARK: - Effects

  /// Starts `effect`, reducing at once the actions it sends synchronously; returns its tasks.
  func start(
    _ effect: Effect<Action>, origin: Action, dependencies: DependencyValues
  ) -> [StoreTask.Part] {
    guard let runner else { return [] }
    let started = runner.run(
      effect, origin: ValueDump.render(origin), dependencies: dependencies)
    var parts = started.tasks
    for action in started.actions { parts += reduceReceived(action, dependencies: dependencies) }
    syncLedger()
    return parts
  }

  /// Reduces an action a running effect sent, and wakes whoever waits for it.
  func didReceive(_ action: Action) {
    // NB: called from the effect that sent the action, so the current scope is the effect's.
    _ = reduceReceived(action, dependencies: dependencies.applying(scope: DependencyValues.scoped))
    wakeAll()
  }

  private func reduceReceived(
    _ action: Action, dependencies: DependencyValues
  ) -> [StoreTask.Part] {
    let effect = dependencies.scope { reducer.reduce(into: &state, action: action) }
    received.append(Received(action: action, observed: observe()))
    return start(effect, origin: action, dependencies: dependencies)
  }

  // MARK: - Waiting

  /// Waits until a received action can be asserted (exhaustive: any action; not exhaustive: one
  /// `matching`), no effect is running, or `timeout` passes.
  func waitForAction(
    exhaustive: Bool, timeout: Duration, matching: (Action) -> Bool
  ) async {
    await wait(timeout: timeout) {
      (exhaustive ? !received.isEmpty : received.contains { matching($0.action) })
        || runningEffects.isEmpty
    }
  }

  /// Waits until no effect is running, or `timeout` passes.
  func waitForEffects(timeout: Duration) async {
    await wait(timeout: timeout) { runningEffects.isEmpty }
  }

  /// The effects still running, each with the action that started it.
  var runningEffects: [EffectRunner<Action>.InFlight] { runner?.running ?? [] }

  /// Suspends until `condition` holds or `timeout` of runnable time passes; wakes when an action
  /// arrives or an effect finishes, never by polling the condition.
  private func wait(timeout: Duration, until condition: () -> Bool) async {
    let timedOut = Mutex(false)
    let timer = Task { [weak self] in
      await RunnableTime.sleep(for: timeout)
      guard !Task.isCancelled else { return }
      timedOut.withLock { $0 = true }
      self?.wakeAll()
    }
    defer { timer.cancel() }
    while !condition(), !timedOut.withLock({ $0 }) {
      let id = UUID()
      await withCheckedContinuation { waiters[id] = $0 }
    }
  }

  /// Resumes every waiter, so each checks its condition again.
  func wakeAll() {
    syncLedger()
    let all = waiters
    waiters = [:]
    for continuation in all.values { continuation.resume() }
  }
}
