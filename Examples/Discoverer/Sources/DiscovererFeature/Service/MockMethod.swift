/// The methods of ``MockMusicService``, as named in its fault plans and call log.
///
/// One case per ``MusicService`` requirement, so a test can fail exactly one method, for
/// example the second page of recently played while the first one loads:
///
/// ```swift
/// service.faults[.fetchRecentlyPlayed] = [.pass(times: 1), .fail(.timeout)]
/// ```
///
/// The raw values are the names used by the text form of a plan
/// (`fetchRecentlyPlayed=1*off->throw(timeout)`).
nonisolated public enum MockMethod: String, CaseIterable, Hashable, Sendable {
  /// ``MusicService/fetchLibraryArtists()``.
  case fetchLibraryArtists
  /// ``MusicService/fetchPlaylistContents(_:)``.
  case fetchPlaylistContents
  /// ``MusicService/fetchRecentlyPlayed(page:)``.
  case fetchRecentlyPlayed
  /// ``MusicService/createPlaylist(named:)``.
  case createPlaylist
  /// ``MusicService/addTracksToLibrary(_:)``.
  case addTracksToLibrary
  /// ``MusicService/removeTracksFromPlaylist(_:playlistID:)``.
  case removeTracksFromPlaylist
}
