import DiscovererFeature
import FaultInjection
import Testing

@MainActor
@Suite("LibraryArtistsViewModel", .timeLimit(.minutes(5)))
struct LibraryArtistsViewModelTests {
  let service: MockMusicService
  let model: LibraryArtistsViewModel

  init() throws {
    service = try makeService()
    model = LibraryArtistsViewModel(service: service)
  }

  @Test("Artists load sorted by name")
  func loadsSorted() async {
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.artists.count == 8)
    #expect(model.artists.first?.name == "Fathom Collective")
    #expect(model.artists.last?.name == "Velvet Archive")
    #expect(Set(model.artists) == Set(service.catalogue.artists))
  }

  @Test("A server error shows the failure with its reason")
  func serverError() async {
    service.faults[.fetchLibraryArtists] = [.fail(.server(status: 500))]
    await model.load()
    #expect(model.state == .failed("The server responded with status 500."))
    #expect(model.artists.isEmpty)
  }

  @Test("A truncated response shows the failure with its reason")
  func truncatedResponse() async {
    service.faults.failingMethods = [.fetchLibraryArtists]
    service.faults.injectedError = InjectedFault.truncatedResponse
    await model.load()
    #expect(model.state == .failed("The response ended before all of its data arrived."))
  }

  @Test("A failed reload keeps the artists already loaded")
  func failedReloadKeepsArtists() async {
    service.faults[.fetchLibraryArtists] = [.pass(times: 1), .fail(.timeout)]
    await model.load()
    let loaded = model.artists
    await model.load()
    #expect(model.state == .failed("The request timed out."))
    #expect(model.artists == loaded)
    #expect(
      service.faults.outcomes(.fetchLibraryArtists) == [
        .returned, .threw("The request timed out."),
      ])
  }

  @Test("Cancelling a parked load goes back to idle, not to a failure")
  func cancelParkedLoad() async throws {
    let gate = service.faults.gate(.fetchLibraryArtists)
    let load = Task { await model.load() }
    try await gate.waitUntilReached()
    #expect(model.state == .loading)
    load.cancel()
    await load.value
    #expect(model.state == .idle)
    #expect(model.artists.isEmpty)
  }

  @Test("An injected CancellationError on a reload keeps the loaded state")
  func injectedCancellationOnReload() async {
    service.faults[.fetchLibraryArtists] = [.pass(times: 1), .fail(CancellationError())]
    await model.load()
    await model.load()
    #expect(model.state == .loaded)
    #expect(model.artists.count == 8)
  }
}
