import DiscovererFeature
import KeepsakeTesting
import Testing

/// `ArtistsFeature`, a reducer of a module built with default `MainActor` isolation, tested with
/// `receive` on its `nonisolated` actions.
@MainActor
@Suite("ArtistsFeature")
struct ArtistsFeatureTests {
  @Test("Appearing loads the library's artists, received as an action")
  func loads() async throws {
    let service = try makeService()
    let expected = try await service.fetchLibraryArtists()
    let store = TestStore(initialState: ArtistsFeature.State()) {
      ArtistsFeature(service: service)
    }

    await store.send(.onAppear) { $0.isLoading = true }
    await store.receive(.loaded(expected)) {
      $0.isLoading = false
      $0.artists = expected
    }
    await store.finish()
  }

  @Test("A failed load is received with its reason, and nothing is shown")
  func fails() async throws {
    let service = try makeService()
    let error = MusicServiceError.invalidPlaylistName
    let reason = String(describing: error)
    service.faults.failingMethods = [.fetchLibraryArtists]
    service.faults.injectedError = error
    let store = TestStore(initialState: ArtistsFeature.State()) {
      ArtistsFeature(service: service)
    }

    await store.send(.onAppear) { $0.isLoading = true }
    await store.receive(.failed(reason)) {
      $0.isLoading = false
      $0.failure = reason
    }
    await store.finish()
  }
}
