/// Runs several reducers on every action, in the order they are listed, and merges their
/// effects.
///
/// ```swift
/// CombineReducers {
///   Scope(state: \.editor, action: Inbox.Action.editor) { Editor() }
///   Reduce { state, action in ... }
/// }
/// ```
///
/// Isolation follows the reducers it combines: it is called on the store's actor.
public struct CombineReducers<State, Action: Sendable>: Reducer {
  private let reducers: [Reduce<State, Action>]

  /// Combines the reducers `build` lists.
  public init(@ReducerBuilder<State, Action> _ build: () -> [Reduce<State, Action>]) {
    self.reducers = build()
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    .merge(reducers.map { $0.reduce(into: &state, action: action) })
  }
}

/// Lists reducers with the same state and action, for ``CombineReducers`` and ``Scope``.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  /// One reducer of the list.
  public static func buildExpression<R: Reducer>(_ reducer: R) -> [Reduce<State, Action>]
  where R.State == State, R.Action == Action {
    [Reduce(reducer)]
  }

  /// The reducers of the list, in order.
  public static func buildBlock(_ parts: [Reduce<State, Action>]...) -> [Reduce<State, Action>] {
    parts.flatMap { $0 }
  }

  /// A reducer listed under `if`.
  public static func buildOptional(_ part: [Reduce<State, Action>]?) -> [Reduce<State, Action>] {
    part ?? []
  }

  /// The first branch of an `if`/`else`.
  public static func buildEither(first part: [Reduce<State, Action>]) -> [Reduce<State, Action>] {
    part
  }

  /// The second branch of an `if`/`else`.
  public static func buildEither(second part: [Reduce<State, Action>]) -> [Reduce<State, Action>] {
    part
  }
}
