import DiscovererFeature
import FaultInjection
import Testing

@MainActor
@Suite("PlaylistEditorViewModel", .timeLimit(.minutes(5)))
struct PlaylistEditorViewModelTests {
  let service: MockMusicService
  let editor: PlaylistEditorViewModel

  init() throws {
    service = try makeService()
    editor = PlaylistEditorViewModel(service: service)
  }

  /// Opens the "Road Trip" playlist (12 tracks) and returns it.
  func openRoadTrip() async throws -> Playlist {
    let playlist = try #require(service.playlists.first { $0.name == "Road Trip" })
    await editor.open(playlist)
    try #require(editor.state == .loaded)
    return playlist
  }

  /// The first `count` tracks of the catalogue.
  func trackIDs(_ count: Int) -> [TrackID] {
    service.catalogue.tracks.prefix(count).map(\.id)
  }

  // MARK: - Happy paths

  @Test("Opening a playlist shows its tracks in play order")
  func opensPlaylist() async throws {
    let playlist = try await openRoadTrip()
    #expect(editor.tracks.map(\.id) == playlist.trackIDs)
    #expect(editor.tracks.count == 12)
  }

  @Test("Creating a playlist opens it empty")
  func createsPlaylist() async {
    let created = await editor.createPlaylist(named: "  Late Night  ")
    #expect(created)
    #expect(editor.playlist?.name == "Late Night")
    #expect(editor.tracks.isEmpty)
    #expect(editor.state == .loaded)
    #expect(service.playlists.count == 4)
  }

  @Test("Removing tracks updates the list once the service confirmed it")
  func removesTracks() async throws {
    let playlist = try await openRoadTrip()
    let removed = Array(playlist.trackIDs.prefix(2))
    await editor.removeTracks(removed)
    #expect(editor.tracks.map(\.id) == Array(playlist.trackIDs.dropFirst(2)))
    #expect(editor.playlist?.trackIDs == Array(playlist.trackIDs.dropFirst(2)))
    #expect(service.playlists.first { $0.id == playlist.id }?.trackIDs.count == 10)
    #expect(editor.toast == nil)
  }

  @Test("Tracks are added to the library in batches of ten")
  func addsInBatches() async {
    let ids = trackIDs(25)
    await editor.addToLibrary(ids)
    let batches = service.faults.calls(to: .addTracksToLibrary)
      .compactMap { $0.arguments(as: [TrackID].self)?.count }
    #expect(batches == [10, 10, 5])
    #expect(service.libraryTrackIDs == ids)
    #expect(editor.addedToLibrary == Set(ids))
    #expect(editor.toast == nil)
  }

  // MARK: - Failures reading

  @Test("A failed playlist fetch shows the failure")
  func fetchFails() async throws {
    service.faults[.fetchPlaylistContents] = [.fail(.server(status: 503))]
    let playlist = try #require(service.playlists.first)
    await editor.open(playlist)
    #expect(editor.state == .failed("The server responded with status 503."))
    #expect(editor.tracks.isEmpty)
  }

  @Test("Opening a playlist the service does not have says which one")
  func unknownPlaylist() async {
    await editor.open(Playlist(id: "playlist.gone", name: "Gone"))
    #expect(editor.state == .failed("No playlist has the identifier playlist.gone."))
  }

  @Test("Cancelling a parked playlist fetch is not a failure")
  func cancelParkedFetch() async throws {
    let gate = service.faults.gate(.fetchPlaylistContents)
    let playlist = try #require(service.playlists.first)
    let open = Task { await editor.open(playlist) }
    try await gate.waitUntilReached()
    #expect(editor.state == .loading)
    open.cancel()
    await open.value
    #expect(editor.state == .idle)
    #expect(service.faults.outcomes(.fetchPlaylistContents) == [.cancelled])
  }

  // MARK: - Failures writing

  @Test("A failed creation shows a toast and leaves the editor as it was")
  func createFails() async {
    service.faults[.createPlaylist] = [.fail(.server(status: 500))]
    let created = await editor.createPlaylist(named: "Late Night")
    #expect(!created)
    #expect(editor.playlist == nil)
    #expect(
      editor.toast
        == "Couldn't create the playlist \"Late Night\". The server responded with status 500.")
    #expect(service.playlists.count == 3)
    editor.dismissToast()
    #expect(editor.toast == nil)
  }

  @Test("A rate-limited creation keeps the open playlist and says to wait")
  func createRateLimited() async throws {
    let playlist = try await openRoadTrip()
    let fault = InjectedFault.rateLimited(retryAfter: .seconds(30))
    service.faults[.createPlaylist] = [.fail(fault)]
    await editor.createPlaylist(named: "Late Night")
    #expect(editor.playlist == playlist)
    #expect(editor.tracks.count == 12)
    #expect(editor.toast == "Couldn't create the playlist \"Late Night\". \(fault.description)")
    #expect(editor.toast?.contains("Too many requests; retry after") == true)
  }

  @Test("An injected CancellationError on creation shows no toast")
  func createCancelled() async {
    service.faults.failingMethods = [.createPlaylist]
    service.faults.injectedError = CancellationError()
    let created = await editor.createPlaylist(named: "Late Night")
    #expect(!created)
    #expect(editor.toast == nil)
    #expect(!editor.isSaving)
  }

  @Test("The fetch succeeds, the removal fails: the list is unchanged and a toast says why")
  func removeFails() async throws {
    let playlist = try await openRoadTrip()
    service.faults[.removeTracksFromPlaylist] = [.fail(.timeout)]
    await editor.removeTracks(Array(playlist.trackIDs.prefix(2)))
    #expect(editor.tracks.map(\.id) == playlist.trackIDs)
    #expect(editor.playlist == playlist)
    #expect(editor.toast == "Couldn't remove 2 tracks from Road Trip. The request timed out.")
    #expect(service.playlists.first { $0.id == playlist.id } == playlist)
  }

  @Test("A failed removal of one track says \"1 track\"")
  func removeOneFails() async throws {
    let playlist = try await openRoadTrip()
    service.faults.failingMethods = [.removeTracksFromPlaylist]
    await editor.removeTracks(Array(playlist.trackIDs.prefix(1)))
    #expect(
      editor.toast == "Couldn't remove 1 track from Road Trip. The network connection was lost.")
  }

  @Test("Cancelling a parked removal shows no toast and keeps the list")
  func cancelParkedRemoval() async throws {
    let playlist = try await openRoadTrip()
    let gate = service.faults.gate(.removeTracksFromPlaylist)
    let remove = Task { await editor.removeTracks(Array(playlist.trackIDs.prefix(3))) }
    try await gate.waitUntilReached()
    #expect(editor.isSaving)
    remove.cancel()
    await remove.value
    #expect(editor.toast == nil)
    #expect(!editor.isSaving)
    #expect(editor.tracks.count == 12)
  }

  @Test("When the second batch fails, the toast says how many tracks were added")
  func secondBatchFails() async {
    service.faults[.addTracksToLibrary] = [.pass(times: 1), .fail(.connectionLost)]
    let ids = trackIDs(25)
    await editor.addToLibrary(ids)
    #expect(
      editor.toast == "Added 10 of 25 tracks to your library. The network connection was lost.")
    #expect(editor.addedToLibrary == Set(ids.prefix(10)))
    #expect(service.libraryTrackIDs == Array(ids.prefix(10)))
    #expect(
      service.faults.outcomes(.addTracksToLibrary) == [
        .returned, .threw("The network connection was lost."),
      ])
  }

  @Test("When the first batch fails, nothing is added and the toast says so")
  func firstBatchFails() async {
    service.faults[.addTracksToLibrary] = [.fail(.notConnected)]
    await editor.addToLibrary(trackIDs(3))
    #expect(
      editor.toast
        == "Couldn't add 3 tracks to your library. The device is not connected to the internet.")
    #expect(editor.addedToLibrary.isEmpty)
    #expect(service.libraryTrackIDs.isEmpty)
  }

  @Test("Cancelling during the second batch sends no third batch and shows no toast")
  func cancelDuringBatches() async throws {
    let gate = FaultGate()
    service.faults[.addTracksToLibrary] = [.pass(times: 1), .gate(gate)]
    let ids = trackIDs(25)
    let add = Task { await editor.addToLibrary(ids) }
    try await gate.waitUntilReached()
    add.cancel()
    await add.value
    #expect(editor.toast == nil)
    #expect(editor.addedToLibrary == Set(ids.prefix(10)))
    #expect(service.faults.callCount(.addTracksToLibrary) == 2)
    #expect(service.faults.outcomes(.addTracksToLibrary) == [.returned, .cancelled])
  }

  @Test("A write the service refuses shows the service's reason")
  func refusedWrite() async {
    await editor.addToLibrary(["track.9999"])
    #expect(
      editor.toast
        == "Couldn't add 1 track to your library. No track has the identifier track.9999.")
  }
}
