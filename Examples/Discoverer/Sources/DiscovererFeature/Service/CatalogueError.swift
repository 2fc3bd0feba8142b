import Keepsake

/// Why sample data for ``MockMusicService`` could not be used.
///
/// Each case names what to fix: the resource, the coding path or the identifier.
nonisolated public enum CatalogueError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The resource is not in the module's bundle.
  case missingResource(String)
  /// The JSON could not be decoded; `reason` names the coding path.
  case undecodable(resource: String, reason: String)
  /// Two tracks share an identifier.
  case duplicateTrack(TrackID)
  /// A track names an artist the catalogue does not have.
  case unknownArtist(track: TrackID, artistID: String)
  /// A playlist lists a track the catalogue does not have.
  case unknownTrack(playlist: PlaylistID, track: TrackID)

  /// A sentence a developer can act on.
  public var description: String {
    switch self {
    case .missingResource(let name):
      "The catalogue \(name) is not in the DiscovererFeature bundle; check the target's resources."
    case .undecodable(let resource, let reason):
      "The catalogue \(resource) could not be decoded: \(reason)"
    case .duplicateTrack(let id):
      "The catalogue lists the track \(id) more than once."
    case .unknownArtist(let track, let artistID):
      "The track \(track) names the artist \(artistID), which the catalogue does not have."
    case .unknownTrack(let playlist, let track):
      "The playlist \(playlist) lists the track \(track), which the catalogue does not have."
    }
  }

  /// A readable account of a decoding error that names the failing coding path.
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    // Paths read as in Keepsake's own errors: `tracks[0].title`, or `the top level`.
    func path(_ context: DecodingError.Context) -> String {
      JSONPathComponent.render(codingPath: context.codingPath)
    }
    switch error {
    case .keyNotFound(let key, let context):
      let parent = path(context)
      return "missing key '\(key.stringValue)' at \(parent)."
    case .typeMismatch(let type, let context):
      return "expected \(type) at \(path(context))."
    case .valueNotFound(let type, let context):
      return "expected \(type) but found null at \(path(context))."
    case .dataCorrupted(let context):
      return "the data is not valid JSON at \(path(context)) (\(context.debugDescription))."
    @unknown default:
      return "\(error)"
    }
  }
}
