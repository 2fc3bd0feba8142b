/// A song as the music service describes it.
///
/// Nonisolated so tracks can be decoded, compared and cached off the main actor.
///
/// ```swift
/// let track = Track(
///   id: "track.0101", title: "Glasshouse Hours", artistID: "artist.lumen-tide",
///   album: "Harbour Lights", durationSeconds: 150)
/// ```
nonisolated public struct Track: Identifiable, Codable, Sendable, Equatable, Hashable {
  /// The track's identifier in the catalogue.
  public var id: TrackID
  /// The song's title.
  public var title: String
  /// The identifier of the performing ``Artist``.
  public var artistID: String
  /// The album the song appears on.
  public var album: String
  /// The running time, in whole seconds.
  public var durationSeconds: Int

  /// Creates a track.
  public init(id: TrackID, title: String, artistID: String, album: String, durationSeconds: Int) {
    self.id = id
    self.title = title
    self.artistID = artistID
    self.album = album
    self.durationSeconds = durationSeconds
  }
}
