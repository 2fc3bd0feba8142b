/// Sends actions from an effect's work back to its store.
///
/// ```swift
/// return .run { send in
///   await send(.loaded(try await api.load()))
/// }
/// ```
///
/// `Send` is `Sendable`; calling it hops to the main actor, where stores run. Once the effect's
/// task is cancelled, actions are dropped, so a cancelled effect never changes state.
public struct Send<Action: Sendable>: Sendable {
  private let send: @MainActor @Sendable (Action) -> Void

  /// A `Send` that passes actions to `send`.
  public init(_ send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends `action` to the store, unless the effect's task was cancelled.
  @MainActor
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    send(action)
  }
}
