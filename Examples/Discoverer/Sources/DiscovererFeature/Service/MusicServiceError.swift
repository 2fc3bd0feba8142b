/// A request the music service understood but refused.
///
/// Transport failures (timeouts, lost connections, server statuses) are not modelled here; they
/// arrive as whatever error the transport throws.
nonisolated public enum MusicServiceError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No playlist has this identifier.
  case playlistNotFound(PlaylistID)
  /// No track has this identifier.
  case trackNotFound(TrackID)
  /// Page numbers start at 1.
  case pageOutOfRange(Int)
  /// A playlist needs a name that is not blank.
  case invalidPlaylistName

  /// A sentence a developer can act on.
  public var description: String {
    switch self {
    case .playlistNotFound(let id): "No playlist has the identifier \(id)."
    case .trackNotFound(let id): "No track has the identifier \(id)."
    case .pageOutOfRange(let page): "Page \(page) does not exist; pages are numbered from 1."
    case .invalidPlaylistName: "A playlist needs a name that is not blank."
    }
  }
}
