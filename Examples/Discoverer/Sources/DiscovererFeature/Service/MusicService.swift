/// The music service the Discoverer screens talk to: the listener's history, library and
/// playlists.
///
/// Every requirement is asynchronous and throwing, because a real implementation goes over the
/// network, and every failure path in the view models is meant to be reached in tests (see
/// ``MockMusicService``).
///
/// The protocol is `nonisolated`: an implementation does its work off the main actor and hands
/// back `Sendable` values, so the main-actor view models can await it without blocking the UI.
///
/// ```swift
/// let page = try await service.fetchRecentlyPlayed(page: 1)
/// try await service.addTracksToLibrary(page.items.map(\.id))
/// ```
nonisolated public protocol MusicService: Sendable {
  /// The artists in the listener's library.
  ///
  /// - Throws: Any transport or server error.
  func fetchLibraryArtists() async throws -> [Artist]

  /// The tracks of a playlist, in play order.
  ///
  /// - Throws: ``MusicServiceError/playlistNotFound(_:)`` for an unknown playlist, or any
  ///   transport or server error.
  func fetchPlaylistContents(_ playlistID: PlaylistID) async throws -> [Track]

  /// One page of the listener's recently played tracks, most recent first.
  ///
  /// - Parameter page: The page number, from 1.
  /// - Throws: ``MusicServiceError/pageOutOfRange(_:)`` for a page below 1, or any transport or
  ///   server error.
  func fetchRecentlyPlayed(page: Int) async throws -> Page<Track>

  /// Creates an empty playlist and returns it.
  ///
  /// - Throws: ``MusicServiceError/invalidPlaylistName`` for a blank name, or any transport or
  ///   server error.
  func createPlaylist(named name: String) async throws -> Playlist

  /// Adds tracks to the listener's library; adding a track already there changes nothing.
  ///
  /// - Throws: ``MusicServiceError/trackNotFound(_:)`` for an unknown track (nothing is added),
  ///   or any transport or server error.
  func addTracksToLibrary(_ trackIDs: [TrackID]) async throws

  /// Removes tracks from a playlist; identifiers not in the playlist are ignored.
  ///
  /// - Throws: ``MusicServiceError/playlistNotFound(_:)`` for an unknown playlist, or any
  ///   transport or server error.
  func removeTracksFromPlaylist(_ trackIDs: [TrackID], playlistID: PlaylistID) async throws
}
