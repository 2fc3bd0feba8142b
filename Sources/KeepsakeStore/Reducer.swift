/// A feature's logic: how an action changes the state, and which work (an ``Effect``) follows.
///
/// A reducer is a value that turns an action into a state change, synchronously, and returns an
/// effect for everything asynchronous. ``Store`` and `TestStore` call ``reduce(into:action:)``
/// on the main actor, one action at a time.
///
/// ```swift
/// struct Counter: Reducer {
///   struct State { var count = 0 }
///   enum Action: Sendable { case incrementTapped, delayedIncrement }
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .incrementTapped:
///       state.count += 1
///       return .run { send in await send(.delayedIncrement) }
///     case .delayedIncrement:
///       state.count += 1
///       return .none
///     }
///   }
/// }
/// ```
///
/// Compose reducers with ``Scope`` (a child feature inside a parent's state and actions),
/// ``Reduce`` (a closure) and ``CombineReducers`` (several reducers, in order).
///
/// The protocol is `nonisolated`; a conformance may be isolated to the main actor (the default
/// in modules built with `.defaultIsolation(MainActor.self)`), since stores call it there.
public protocol Reducer<State, Action> {
  /// The state the reducer changes.
  associatedtype State
  /// The actions the reducer handles.
  associatedtype Action: Sendable

  /// Changes `state` for `action` and returns the work that follows.
  ///
  /// - Parameters:
  ///   - state: The feature's state, changed in place.
  ///   - action: What happened.
  /// - Returns: An effect to run, or ``Effect/none``.
  func reduce(into state: inout State, action: Action) -> Effect<Action>
}
