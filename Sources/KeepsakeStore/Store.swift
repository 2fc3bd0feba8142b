import Observation

/// Runs a feature: holds its state, runs its reducer for every action and runs the effects the
/// reducer returns.
///
/// ```swift
/// @MainActor let store = Store(initialState: Inbox.State()) { Inbox() }
/// store.send(.draftDiscarded(id))
/// Text("\(store.state.drafts.count) drafts")
/// ```
///
/// `Store` is isolated to the main actor and observable (Observation framework): views and view
/// models that read ``state`` update when it changes. Shared values in the state are observed
/// through their own references, so changes made elsewhere show up too.
@MainActor
@Observable
public final class Store<State, Action: Sendable> {
  /// The feature's current state.
  public private(set) var state: State

  @ObservationIgnored private let reducer: Reduce<State, Action>
  @ObservationIgnored private var runner: EffectRunner<Action>?

  /// A store that starts from `initialState` and runs the reducer `reducer` builds.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: Builds the feature's reducer.
  public init<R: Reducer>(
    initialState: R.State, reducer: () -> R
  ) where R.State == State, R.Action == Action {
    self.state = initialState
    self.reducer = Reduce(reducer())
    self.runner = nil
    self.runner = EffectRunner { [weak self] action in self?.send(action) }
  }

  isolated deinit {
    runner?.cancelAll()
  }

  /// Sends `action`: runs the reducer now and starts the effect it returns.
  ///
  /// Actions an effect sends with ``Effect/send(_:)`` are handled before this returns.
  ///
  /// - Returns: The work the action started, to await or cancel.
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    guard let runner else { return StoreTask([]) }
    var tasks: [Task<Void, Never>] = []
    var queue = [action]
    while !queue.isEmpty {
      let next = queue.removeFirst()
      let effect = reducer.reduce(into: &state, action: next)
      let started = runner.run(effect, origin: String(describing: next))
      tasks += started.tasks
      queue += started.actions
    }
    return StoreTask(tasks)
  }
}
