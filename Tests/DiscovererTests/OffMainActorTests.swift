import DiscovererFeature
import FaultInjection
import Foundation
import Testing

// NB: deliberately NOT `@MainActor`. Swift Testing runs this suite on a background executor, so
// every call below would trap the whole test process (and make dozens of unrelated tests "fail"
// in 0.000 s) if DiscovererFeature's default MainActor isolation leaked into a declaration that
// promises to be `nonisolated`. Keep it that way; see Examples/Discoverer/README.md.
@Suite("Off the main actor", .timeLimit(.minutes(5)))
struct OffMainActorTests {
  @Test(
    "chunked(into:) splits in order, with a shorter last chunk",
    arguments: [
      (Array(1...5), 2, [[1, 2], [3, 4], [5]]),
      (Array(1...4), 2, [[1, 2], [3, 4]]),
      (Array(1...3), 10, [[1, 2, 3]]),
      ([], 3, []),
    ])
  func chunked(elements: [Int], size: Int, expected: [[Int]]) {
    #expect(elements.chunked(into: size) == expected)
  }

  @Test("chunked(into:) runs on a background executor without trapping")
  func chunkedInDetachedTask() async {
    let result = await Task.detached {
      // Pins where this runs: off the main thread, so a MainActor helper would trap here.
      (onMain: Thread.isMainThread, chunks: Array(1...7).chunked(into: 3))
    }.value
    #expect(!result.onMain)
    #expect(result.chunks == [[1, 2, 3], [4, 5, 6], [7]])
  }

  @Test("The mock service, its models and its errors work from a background executor")
  func serviceInDetachedTask() async throws {
    let artist = Artist(id: "artist.a", name: "A", genre: "Indie")
    let tracks = (1...12).map {
      Track(
        id: TrackID("track.\($0)"), title: "Song \($0)", artistID: artist.id, album: "LP",
        durationSeconds: 200)
    }
    let catalogue = Catalogue(tracks: tracks, artists: [artist], playlists: [])
    let page = try await Task.detached {
      try catalogue.validate()
      let service = MockMusicService(catalogue: catalogue)
      service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.timeout)]
      let first = try await service.fetchRecentlyPlayed(page: 1)
      await #expect(throws: InjectedFault.timeout) {
        try await service.fetchRecentlyPlayed(page: 2)
      }
      #expect(service.faults.callCount(.fetchRecentlyPlayed) == 2)
      return first
    }.value
    #expect(page.items == Array(tracks.prefix(10)))
    #expect(page.hasMore)
  }

  @Test("A catalogue decodes, and reports bad data, from a background executor")
  func catalogueInDetachedTask() async throws {
    let json =
      #"{"tracks": [], "artists": [{"id": "a", "name": "A", "genre": "G"}], "playlists": []}"#
    let decoded = try await Task.detached { try Catalogue(json: Data(json.utf8)) }.value
    #expect(decoded.artists.map(\.name) == ["A"])
    let failure = await Task.detached { () -> CatalogueError? in
      do throws(CatalogueError) {
        _ = try Catalogue(json: Data("{}".utf8))
        return nil
      } catch {
        return error
      }
    }.value
    #expect(failure?.description.contains("missing key") == true)
  }

  @Test("Load states and service errors compare and describe themselves off the main actor")
  func valuesOffMain() {
    #expect(LoadState.failed("x") != LoadState.loaded)
    #expect(
      MusicServiceError.pageOutOfRange(0).description
        == "Page 0 does not exist; pages are numbered from 1.")
    #expect(PlaylistEditorViewModel.defaultBatchSize == 10)
    #expect(RecentlyPlayedViewModel.defaultCacheURL.lastPathComponent == "recently-played.json")
  }

  @Test("The bundled mock can be made from here by awaiting the main actor")
  func bundledMockFromBackground() async throws {
    let service = try await MockMusicService()
    let artists = try await service.fetchLibraryArtists()
    #expect(artists.count == 8)
  }
}
