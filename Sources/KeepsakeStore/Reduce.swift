/// A reducer made from a closure.
///
/// ```swift
/// Reduce<State, Action> { state, action in
///   if case .reset = action { state = State() }
///   return .none
/// }
/// ```
///
/// Like every reducer, it is called on the actor of the store that runs it (the main actor).
public struct Reduce<State, Action: Sendable>: Reducer {
  private let body: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `reduce` for every action.
  ///
  /// - Parameter reduce: Changes the state for an action and returns the work that follows.
  public init(_ reduce: @escaping (_ state: inout State, _ action: Action) -> Effect<Action>) {
    self.body = reduce
  }

  /// Wraps another reducer, erasing its type.
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.body = { reducer.reduce(into: &$0, action: $1) }
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body(&state, action)
  }
}
