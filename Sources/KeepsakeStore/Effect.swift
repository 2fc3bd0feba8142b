/// Work a reducer asks for after changing state: sending an action, running asynchronous code,
/// or cancelling work already running.
///
/// ```swift
/// case .refreshTapped:
///   return .run { send in
///     let session = try await api.refresh()
///     await send(.refreshed(session))
///   }
///   .cancellable(id: CancelID.refresh, cancelInFlight: true)
/// case .cancelTapped:
///   return .cancel(id: CancelID.refresh)
/// ```
///
/// Effects are values; a ``Store`` (or a `TestStore`) runs them. `Effect` is `Sendable` and
/// nonisolated; the work of ``run(priority:operation:catch:)`` runs off the main actor and
/// sends actions back to the store on the main actor.
public struct Effect<Action: Sendable>: Sendable {
  indirect enum Operation: Sendable {
    case none
    case send(Action)
    case run(priority: TaskPriority?, operation: @Sendable (Send<Action>) async -> Void)
    case merge([Effect])
    case cancellable(Effect, id: EffectID, cancelInFlight: Bool)
    case cancel(EffectID)
  }

  let operation: Operation

  private init(_ operation: Operation) { self.operation = operation }

  /// No work.
  public static var none: Effect { Effect(.none) }

  /// Sends `action` to the store right after the current action, synchronously.
  ///
  /// Prefer sharing logic in a helper over sending actions to yourself; use this to tell a
  /// parent feature something happened.
  public static func send(_ action: Action) -> Effect { Effect(.send(action)) }

  /// Runs `operation` in a new task; it sends actions with `send`.
  ///
  /// The task is cancelled when the store goes away, when a ``cancel(id:)`` names an id this
  /// effect was made ``cancellable(id:cancelInFlight:)`` with, or when the task a store's `send`
  /// returned is cancelled. After cancellation `send` drops actions.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task.
  ///   - operation: The work; it runs off the main actor.
  ///   - handler: Called with any error `operation` throws, except `CancellationError`; without
  ///     it such errors are dropped.
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil
  ) -> Effect {
    Effect(
      .run(priority: priority) { send in
        do {
          try await operation(send)
        } catch is CancellationError {
          return
        } catch {
          await handler?(error, send)
        }
      })
  }

  /// Runs all `effects` at once.
  public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

  /// Runs all `effects` at once.
  public static func merge(_ effects: [Effect]) -> Effect {
    let work = effects.filter {
      if case .none = $0.operation { return false }
      return true
    }
    switch work.count {
    case 0: return .none
    case 1: return work[0]
    default: return Effect(.merge(work))
    }
  }

  /// This effect, cancellable with ``cancel(id:)``.
  ///
  /// - Parameters:
  ///   - id: Names the work, such as a case of a `CancelID` enum.
  ///   - cancelInFlight: Whether to cancel work already running under `id` first, so at most
  ///     one runs at a time.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
    Effect(.cancellable(self, id: EffectID(id), cancelInFlight: cancelInFlight))
  }

  /// Cancels the work running under `id`.
  public static func cancel(id: some Hashable & Sendable) -> Effect {
    Effect(.cancel(EffectID(id)))
  }

  /// The same work, sending actions transformed by `transform`; used to embed a child
  /// feature's effects in its parent's.
  public func map<Other: Sendable>(
    _ transform: @escaping @Sendable (Action) -> Other
  ) -> Effect<Other> {
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let priority, let operation):
      return Effect<Other>(
        .run(priority: priority) { send in
          await operation(Send { action in send(transform(action)) })
        })
    case .merge(let effects):
      return .merge(effects.map { $0.map(transform) })
    case .cancellable(let effect, let id, let cancelInFlight):
      return Effect<Other>(
        .cancellable(effect.map(transform), id: id, cancelInFlight: cancelInFlight))
    case .cancel(let id):
      return Effect<Other>(.cancel(id))
    }
  }
}

/// The identity of cancellable work: any hashable, sendable value.
///
/// `@unchecked Sendable`: `AnyHashable` is not `Sendable`, but the only initializer takes a
/// `Sendable` value, so the boxed value always is.
struct EffectID: Hashable, @unchecked Sendable {
  private let base: AnyHashable

  init(_ base: some Hashable & Sendable) { self.base = AnyHashable(base) }
}
