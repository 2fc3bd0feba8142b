import Foundation
import KeepsakeStore

/// Reads the built-in dependencies: in its reducer, in effects, and in detached tasks.
struct Stamper: Reducer {
  struct State: Equatable {
    var ids: [UUID] = []
    var date: Date?
    var rolls: [Int] = []
    var ticks = 0
  }

  enum Action: Equatable, Sendable {
    case stampTapped
    case stamped(inEffect: UUID, capturedInDetached: UUID, carriedToDetached: UUID)
    case stampDetachedTapped
    case stampedDetached(UUID)
    case dateTapped
    case rollTapped
    case timerStarted
    case tick
  }

  @Dependency(\.uuid) var uuid
  @Dependency(\.date) var date
  @Dependency(\.random) var random
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .stampTapped:
      state.ids.append(uuid())
      return .run { send in
        let inEffect = uuid()
        // A value read in the effect keeps working in a detached task.
        let generate = uuid
        let captured = await Task.detached { generate() }.value
        // So do the effect's values, carried over explicitly.
        let dependencies = DependencyValues.current
        let carried = await Task.detached {
          withDependencies {
            $0 = dependencies
          } operation: {
            @Dependency(\.uuid) var uuid
            return uuid()
          }
        }.value
        await send(
          .stamped(inEffect: inEffect, capturedInDetached: captured, carriedToDetached: carried))
      }
    case .stamped(let inEffect, let captured, let carried):
      state.ids += [inEffect, captured, carried]
      return .none
    case .stampDetachedTapped:
      // NB: a detached task has no scope: the wrapper falls back to the values the reducer
      // remembered when the store made it.
      return .run { send in
        let id = await Task.detached { uuid() }.value
        await send(.stampedDetached(id))
      }
    case .stampedDetached(let id):
      state.ids.append(id)
      return .none
    case .dateTapped:
      state.date = date.now
      return .none
    case .rollTapped:
      state.rolls.append(random { Int.random(in: 1...1_000_000, using: &$0) })
      return .none
    case .timerStarted:
      return .run { send in
        try await clock.sleep(for: .seconds(1))
        await send(.tick)
      }
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}
