import Foundation

/// Runs effects for a ``Store`` or a `TestStore`: starts their tasks, remembers which are in
/// flight under which cancellation ids, and cancels them.
@MainActor
package final class EffectRunner<Action: Sendable> {
  /// One running task, with a description of the action whose effect started it.
  package struct InFlight {
    package let task: Task<Void, Never>
    let ids: Set<EffectID>
    /// The action whose effect started the task, described.
    package let origin: String
    /// Set by the task itself when the effect's work returns, before it hops back to the main
    /// actor: readable from any thread, so a check that cannot wait for the main actor (a test
    /// store's end-of-test check) can still tell a finished effect from a running one.
    package let completion: EffectCompletion
  }

  /// What running an effect started.
  package struct Started {
    /// The tasks of the effect's asynchronous work.
    package var tasks: [StoreTask.Part] = []
    /// Actions the effect sends right away (``Effect/send(_:)``), in order.
    package var actions: [Action] = []
  }

  private var inFlight: [UUID: InFlight] = [:]
  private let send: @MainActor (Action) -> Void
  private let didFinish: @MainActor () -> Void

  /// A runner whose asynchronous work sends actions to `send`.
  ///
  /// - Parameters:
  ///   - send: Receives actions sent by running work.
  ///   - didFinish: Called after a task finishes.
  package init(
    send: @escaping @MainActor (Action) -> Void,
    didFinish: @escaping @MainActor () -> Void = {}
  ) {
    self.send = send
    self.didFinish = didFinish
  }

  /// The tasks still running.
  package var running: [InFlight] { Array(inFlight.values) }

  /// Starts `effect`, returned for the action described by `origin`; its work runs with
  /// `dependencies` as the current scope.
  package func run(
    _ effect: Effect<Action>, origin: String, dependencies: DependencyValues
  ) -> Started {
    var started = Started()
    run(effect, ids: [], origin: origin, dependencies: dependencies, into: &started)
    return started
  }

  private func run(
    _ effect: Effect<Action>, ids: Set<EffectID>, origin: String,
    dependencies: DependencyValues, into started: inout Started
  ) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      started.actions.append(action)
    case .run(let priority, let operation):
      let id = UUID()
      let send = Send<Action> { [weak self] action in self?.send(action) }
      // NB: the task cannot start before this method returns (it runs on the main actor, which
      // is busy here), so it is always registered before it can finish.
      // NB: the store's dependencies are set explicitly: the task inherits the task-locals of
      // whoever sent the action, which are not the store's (a button's action has none).
      let completion = EffectCompletion()
      let task = Task(priority: priority) { [weak self] in
        await dependencies.scope { await completion.run(operation, send) }
        self?.finish(id)
      }
      inFlight[id] = InFlight(task: task, ids: ids, origin: origin, completion: completion)
      started.tasks.append(StoreTask.Part(task: task, origin: origin))
    case .merge(let effects):
      for effect in effects {
        run(effect, ids: ids, origin: origin, dependencies: dependencies, into: &started)
      }
    case .cancellable(let effect, let id, let cancelInFlight):
      if cancelInFlight { cancel(id) }
      run(
        effect, ids: ids.union([id]), origin: origin, dependencies: dependencies, into: &started)
    case .cancel(let id):
      cancel(id)
    }
  }

  private func finish(_ id: UUID) {
    guard inFlight.removeValue(forKey: id) != nil else { return }
    didFinish()
  }

  /// Cancels the work running under `id`.
  func cancel(_ id: EffectID) {
    for (key, entry) in inFlight where entry.ids.contains(id) {
      entry.task.cancel()
      inFlight[key] = nil
    }
    didFinish()
  }

  /// Cancels all running work.
  package func cancelAll() {
    for entry in inFlight.values { entry.task.cancel() }
    inFlight = [:]
  }
}
