import FaultInjection
import Foundation
import Synchronization

/// A ``MusicService`` that serves a ``Catalogue`` from memory and fails on cue.
///
/// Every method starts with the fault seam, `try await faults.intercept(...)`, so a test decides,
/// method by method and call by call, whether the request passes, throws, waits on the
/// injector's clock or parks at a gate, and can read back the log of calls afterwards. Writes
/// (new playlists, library additions, removals) change the mock's own state, so a test can check
/// what the service was left with.
///
/// ```swift
/// let service = try MockMusicService()
/// service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.server(status: 503))]
/// let model = RecentlyPlayedViewModel(service: service)
/// await model.load()      // page 1 arrives
/// await model.loadMore()  // page 2 fails; the list stays, pagination ends
/// ```
///
/// Nonisolated and `Sendable`: its mutable state sits behind a `Mutex`, so it can be called from
/// the main actor, a background task or a test suite that is not `@MainActor`.
nonisolated public final class MockMusicService: MusicService {
  /// How many tracks a page of recently played holds.
  public static let pageSize = 10

  /// The fault seam: plans, gates, the injected error and the log of calls.
  public let faults: FaultInjector<MockMethod>
  /// The sample data the mock started from.
  public let catalogue: Catalogue

  private struct State {
    var library: [TrackID] = []
    var playlists: [Playlist]
    var createdCount = 0
  }

  private let state: Mutex<State>
  private let tracksByID: [TrackID: Track]

  /// Creates a mock serving `catalogue`, with its faults driven by `faults`.
  ///
  /// The library starts empty; the playlists are the catalogue's.
  public init(catalogue: Catalogue, faults: FaultInjector<MockMethod> = FaultInjector()) {
    self.catalogue = catalogue
    self.faults = faults
    self.state = Mutex(State(playlists: catalogue.playlists))
    // NB: `uniquingKeysWith` rather than `uniqueKeysWithValues`, which traps on a duplicate; a
    // catalogue built from values has not necessarily been validated.
    self.tracksByID = Dictionary(catalogue.tracks.map { ($0.id, $0) }) { first, _ in first }
  }

  /// Creates a mock serving the bundled catalogue.
  ///
  /// - Throws: ``CatalogueError`` when the bundled catalogue is missing or invalid.
  ///
  /// `@MainActor` because ``Catalogue/bundled()`` is (it reads `Bundle.module`); from another
  /// executor, `await` it, or build a catalogue yourself and use ``init(catalogue:faults:)``.
  @MainActor
  public convenience init(faults: FaultInjector<MockMethod> = FaultInjector())
    throws(CatalogueError)
  {
    self.init(catalogue: try Catalogue.bundled(), faults: faults)
  }

  /// The tracks added to the library so far, in the order they were added.
  public var libraryTrackIDs: [TrackID] {
    state.withLock { $0.library }
  }

  /// The playlists as they stand now: the catalogue's, then the ones created since.
  public var playlists: [Playlist] {
    state.withLock { $0.playlists }
  }

  // MARK: - MusicService

  /// The catalogue's artists.
  ///
  /// - Throws: The fault planned for ``MockMethod/fetchLibraryArtists``.
  public func fetchLibraryArtists() async throws -> [Artist] {
    try await faults.intercept(.fetchLibraryArtists)
    return catalogue.artists
  }

  /// The tracks of the playlist as it stands now.
  ///
  /// - Throws: The fault planned for ``MockMethod/fetchPlaylistContents``, or
  ///   ``MusicServiceError/playlistNotFound(_:)``.
  public func fetchPlaylistContents(_ playlistID: PlaylistID) async throws -> [Track] {
    try await faults.intercept(.fetchPlaylistContents, arguments: playlistID)
    let trackIDs = try state.withLock { state in
      guard let playlist = state.playlists.first(where: { $0.id == playlistID }) else {
        throw MusicServiceError.playlistNotFound(playlistID)
      }
      return playlist.trackIDs
    }
    return trackIDs.compactMap { tracksByID[$0] }
  }

  /// Page `page` of the catalogue's tracks, ``pageSize`` at a time.
  ///
  /// A page past the end is empty and has no more after it.
  ///
  /// - Throws: The fault planned for ``MockMethod/fetchRecentlyPlayed`` (the page number is
  ///   passed as the call's arguments), or ``MusicServiceError/pageOutOfRange(_:)``.
  public func fetchRecentlyPlayed(page: Int) async throws -> Page<Track> {
    try await faults.intercept(.fetchRecentlyPlayed, arguments: page)
    guard page >= 1 else { throw MusicServiceError.pageOutOfRange(page) }
    let tracks = catalogue.tracks
    let start = Swift.min((page - 1) * Self.pageSize, tracks.count)
    let end = Swift.min(start + Self.pageSize, tracks.count)
    return Page(number: page, items: Array(tracks[start..<end]), hasMore: end < tracks.count)
  }

  /// Adds an empty playlist named `name` (trimmed) and returns it.
  ///
  /// - Throws: The fault planned for ``MockMethod/createPlaylist``, or
  ///   ``MusicServiceError/invalidPlaylistName``.
  public func createPlaylist(named name: String) async throws -> Playlist {
    try await faults.intercept(.createPlaylist, arguments: name)
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw MusicServiceError.invalidPlaylistName }
    return state.withLock { state in
      state.createdCount += 1
      let playlist = Playlist(id: PlaylistID("playlist.new-\(state.createdCount)"), name: trimmed)
      state.playlists.append(playlist)
      return playlist
    }
  }

  /// Adds the tracks not yet in the library, keeping their order.
  ///
  /// - Throws: The fault planned for ``MockMethod/addTracksToLibrary``, or
  ///   ``MusicServiceError/trackNotFound(_:)`` (then nothing is added).
  public func addTracksToLibrary(_ trackIDs: [TrackID]) async throws {
    try await faults.intercept(.addTracksToLibrary, arguments: trackIDs)
    if let unknown = trackIDs.first(where: { tracksByID[$0] == nil }) {
      throw MusicServiceError.trackNotFound(unknown)
    }
    state.withLock { state in
      for id in trackIDs where !state.library.contains(id) {
        state.library.append(id)
      }
    }
  }

  /// Removes the tracks from the playlist.
  ///
  /// - Throws: The fault planned for ``MockMethod/removeTracksFromPlaylist``, or
  ///   ``MusicServiceError/playlistNotFound(_:)``.
  public func removeTracksFromPlaylist(_ trackIDs: [TrackID], playlistID: PlaylistID) async throws {
    try await faults.intercept(.removeTracksFromPlaylist, arguments: trackIDs)
    try state.withLock { state in
      guard let index = state.playlists.firstIndex(where: { $0.id == playlistID }) else {
        throw MusicServiceError.playlistNotFound(playlistID)
      }
      let removed = Set(trackIDs)
      state.playlists[index].trackIDs.removeAll { removed.contains($0) }
    }
  }
}
