import Foundation
import KeepsakeStore

/// The "Library artists" screen as a reducer: the same job as ``LibraryArtistsViewModel``,
/// written for `KeepsakeStore`, in a module whose default isolation is the main actor.
///
/// NB: `Action` is declared `nonisolated`. In a module built with
/// `.defaultIsolation(MainActor.self)`, an unannotated `enum Action: Equatable` gets a
/// main-actor-isolated `Equatable` conformance, which a `TestStore` cannot use: its actions
/// travel from effects to the main actor, so they are `Sendable`, and an isolated conformance
/// cannot satisfy a requirement of a `Sendable` type (the compiler says "main actor-isolated
/// conformance of 'Action' to 'Equatable' cannot satisfy conformance requirement for a
/// 'Sendable' type parameter"). Actions are plain values: `nonisolated` is what they mean.
/// `State` may stay on the main actor.
public struct ArtistsFeature: Reducer {
  public struct State: Equatable {
    /// The artists on screen, in the service's order.
    public var artists: [Artist] = []
    /// Whether the screen waits for the service.
    public var isLoading = false
    /// Why the last load failed, in a sentence, or `nil`.
    public var failure: String?

    public init() {}
  }

  /// What can happen on the screen; `nonisolated`, see the type's discussion.
  nonisolated public enum Action: Equatable, Sendable {
    case onAppear
    case loaded([Artist])
    case failed(String)
  }

  private let service: any MusicService

  /// A feature that loads from `service`.
  public init(service: any MusicService) {
    self.service = service
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .onAppear:
      state.isLoading = true
      state.failure = nil
      let service = service
      return .run { send in
        do {
          await send(.loaded(try await service.fetchLibraryArtists()))
        } catch {
          await send(.failed(FailureReason.text(for: error)))
        }
      }
    case .loaded(let artists):
      state.isLoading = false
      state.artists = artists
      return .none
    case .failed(let reason):
      state.isLoading = false
      state.failure = reason
      return .none
    }
  }
}
