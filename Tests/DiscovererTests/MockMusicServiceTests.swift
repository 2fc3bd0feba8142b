import DiscovererFeature
import FaultInjection
import Testing

@MainActor
@Suite("MockMusicService", .timeLimit(.minutes(5)))
struct MockMusicServiceTests {
  let service: MockMusicService

  init() throws {
    service = try makeService()
  }

  @Test("Recently played comes in four pages of ten, the last without more")
  func pages() async throws {
    var numbers: [Int] = []
    var hasMore = true
    var page = 0
    while hasMore {
      page += 1
      let result = try await service.fetchRecentlyPlayed(page: page)
      #expect(result.number == page)
      numbers.append(result.items.count)
      hasMore = result.hasMore
    }
    #expect(numbers == [10, 10, 10, 10])
    let past = try await service.fetchRecentlyPlayed(page: 5)
    #expect(past.items.isEmpty && !past.hasMore)
  }

  @Test("Page zero is refused")
  func pageZero() async {
    await #expect(throws: MusicServiceError.pageOutOfRange(0)) {
      try await service.fetchRecentlyPlayed(page: 0)
    }
  }

  @Test("A blank playlist name is refused and nothing is created")
  func blankName() async {
    await #expect(throws: MusicServiceError.invalidPlaylistName) {
      try await service.createPlaylist(named: "   ")
    }
    #expect(service.playlists.count == 3)
  }

  @Test("Adding a track twice keeps one copy in the library")
  func addTwice() async throws {
    try await service.addTracksToLibrary(["track.0101", "track.0102"])
    try await service.addTracksToLibrary(["track.0101"])
    #expect(service.libraryTrackIDs == ["track.0101", "track.0102"])
  }

  @Test("Every method goes through the seam, and the log names them in call order")
  func everyMethodIsLogged() async throws {
    let playlist = try #require(service.playlists.first)
    _ = try await service.fetchLibraryArtists()
    _ = try await service.fetchPlaylistContents(playlist.id)
    _ = try await service.fetchRecentlyPlayed(page: 1)
    _ = try await service.createPlaylist(named: "New")
    try await service.addTracksToLibrary([])
    try await service.removeTracksFromPlaylist([], playlistID: playlist.id)
    #expect(service.faults.log.map(\.method) == MockMethod.allCases)
    #expect(service.faults.log.allSatisfy { $0.outcome == .returned })
  }

  @Test("A failing method fails before the mock changes anything")
  func failsBeforeWriting() async {
    service.faults.failingMethods = [.addTracksToLibrary]
    await #expect(throws: InjectedFault.connectionLost) {
      try await service.addTracksToLibrary(["track.0101"])
    }
    #expect(service.libraryTrackIDs.isEmpty)
  }
}
