import Foundation
import Observation

/// The "Artists" screen: the artists in the listener's library, sorted by name.
///
/// A failure shows ``LoadState/failed(_:)`` and keeps any artists already loaded, so a retry
/// with ``load()`` has something to replace; a cancelled load puts the state back as it was.
///
/// ```swift
/// let model = LibraryArtistsViewModel(service: service)
/// await model.load()
/// ```
///
/// `@MainActor`: it publishes state for SwiftUI.
@MainActor
@Observable
public final class LibraryArtistsViewModel {
  /// Whether the artists are loading, shown, or could not be loaded.
  public private(set) var state: LoadState = .idle
  /// The artists, sorted by name as a person would sort them.
  public private(set) var artists: [Artist] = []

  @ObservationIgnored private let service: any MusicService

  /// Creates the model; nothing is requested until ``load()``.
  public init(service: any MusicService) {
    self.service = service
  }

  /// Loads the artists, replacing the ones shown.
  ///
  /// Calling it while a load is in flight does nothing.
  public func load() async {
    guard state != .loading else { return }
    let previousState = state
    state = .loading
    do {
      let fetched = try await service.fetchLibraryArtists()
      try Task.checkCancellation()
      artists = fetched.sorted {
        $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending
      }
      state = .loaded
    } catch let error where FailureReason.isCancellation(error) {
      state = previousState
    } catch {
      state = .failed(FailureReason.text(for: error))
    }
  }
}
