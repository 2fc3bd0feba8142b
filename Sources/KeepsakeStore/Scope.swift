/// Runs a child feature's reducer on a part of a parent's state, for the parent actions that
/// carry a child action.
///
/// ```swift
/// enum Action: Sendable { case editor(Editor.Action), draftDiscarded(UUID) }
///
/// CombineReducers {
///   Scope(state: \.editor, action: Action.editor) { Editor() }
///   Reduce { state, action in ... }
/// }
/// ```
///
/// The child's effects send parent actions (each child action embedded with `action`). A parent
/// action is the child's when it is the enum case `action` builds: with no macros, the child
/// action is read back by reflection. For actions reflection cannot read (a case with several
/// associated values, say), pass `extract` as well.
///
/// Called on the store's actor, like every reducer.
public struct Scope<State, Action: Sendable, ChildState, ChildAction: Sendable>: Reducer {
  private let state: WritableKeyPath<State, ChildState>
  private let extract: (Action) -> ChildAction?
  private let embed: @Sendable (ChildAction) -> Action
  private let child: CombineReducers<ChildState, ChildAction>

  /// Scopes the child reducers `child` to `state` and to the actions built by `action`.
  ///
  /// - Parameters:
  ///   - state: Where the child's state lives in the parent's.
  ///   - action: Embeds a child action in a parent action, usually an enum case
  ///     (`Action.editor`).
  ///   - child: The child's reducers.
  public init(
    state: WritableKeyPath<State, ChildState>,
    action: @escaping @Sendable (ChildAction) -> Action,
    @ReducerBuilder<ChildState, ChildAction> child: () -> [Reduce<ChildState, ChildAction>]
  ) {
    self.state = state
    self.embed = action
    self.extract = { ActionReflection.extract($0, embeddedBy: action) }
    self.child = CombineReducers(child)
  }

  /// Scopes the child reducers `child` to `state`, with an explicit way to find child actions.
  ///
  /// - Parameters:
  ///   - state: Where the child's state lives in the parent's.
  ///   - action: Embeds a child action in a parent action.
  ///   - extract: The child action a parent action carries, or `nil`.
  ///   - child: The child's reducers.
  public init(
    state: WritableKeyPath<State, ChildState>,
    action: @escaping @Sendable (ChildAction) -> Action,
    extract: @escaping (Action) -> ChildAction?,
    @ReducerBuilder<ChildState, ChildAction> child: () -> [Reduce<ChildState, ChildAction>]
  ) {
    self.state = state
    self.embed = action
    self.extract = extract
    self.child = CombineReducers(child)
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    guard let childAction = extract(action) else { return .none }
    return child.reduce(into: &state[keyPath: self.state], action: childAction).map(embed)
  }
}
