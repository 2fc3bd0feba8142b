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
///
/// The store captures the ``DependencyValues`` of the scope it is made in, changed by its
/// `withDependencies:` argument, and runs its reducer, and every effect it starts, with them.
/// Values set by a `withDependencies` scope around a ``send(_:)`` win over the captured ones for
/// that action and its effects, except those the store set itself.
@MainActor
@Observable
public final class Store<State, Action: Sendable> {
  /// The feature's current state.
  public private(set) var state: State

  @ObservationIgnored private let reducer: Reduce<State, Action>
  @ObservationIgnored private var runner: EffectRunner<Action>?
  @ObservationIgnored private let dependencies: DependencyValues

  /// A store that starts from `initialState` and runs the reducer `reducer` builds.
  ///
  /// The initial state and the reducer are made with the store's dependencies, so a
  /// ``Dependency`` in either remembers them:
  ///
  /// ```swift
  /// let store = Store(initialState: Inbox.State()) { Inbox() } withDependencies: {
  ///   $0.uuid = .live
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: Builds the feature's reducer.
  ///   - prepareDependencies: Changes the dependencies of the current scope for this store.
  public init<R: Reducer>(
    initialState: @autoclosure () -> R.State,
    reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    var dependencies = DependencyValues.currentForStore
    prepareDependencies(&dependencies)
    self.dependencies = dependencies
    self.state = dependencies.scope { initialState() }
    self.reducer = dependencies.scope { Reduce(reducer()) }
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
    let dependencies = self.dependencies.applying(scope: DependencyValues.scoped)
    var tasks: [StoreTask.Part] = []
    var queue = [action]
    while !queue.isEmpty {
      let next = queue.removeFirst()
      let effect = dependencies.scope { reducer.reduce(into: &state, action: next) }
      let started = runner.run(
        effect, origin: String(describing: next), dependencies: dependencies)
      tasks += started.tasks
      queue += started.actions
    }
    return StoreTask(tasks)
  }
}
