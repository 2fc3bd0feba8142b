/// A named, ordered list of tracks the listener made.
///
/// The playlist holds track identifiers only; ``MusicService/fetchPlaylistContents(_:)`` resolves
/// them into tracks. Nonisolated so playlists can be decoded and compared off the main actor.
nonisolated public struct Playlist: Identifiable, Codable, Sendable, Equatable, Hashable {
  /// The playlist's identifier.
  public var id: PlaylistID
  /// The name the listener gave it.
  public var name: String
  /// The tracks, in play order.
  public var trackIDs: [TrackID]

  /// Creates a playlist.
  public init(id: PlaylistID, name: String, trackIDs: [TrackID] = []) {
    self.id = id
    self.name = name
    self.trackIDs = trackIDs
  }
}
