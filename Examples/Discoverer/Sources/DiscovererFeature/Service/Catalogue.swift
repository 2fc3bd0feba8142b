import Foundation

/// The sample data ``MockMusicService`` serves: tracks, artists and playlists.
///
/// The bundled catalogue (`Resources/catalogue.json`) has 40 tracks by 8 artists and 3
/// playlists. ``tracks`` is in recently played order, most recent first.
///
/// Decoding checks the data as well as its shape: bad data gives a ``CatalogueError`` that names
/// the place to fix, never a crash.
///
/// ```swift
/// let catalogue = try Catalogue.bundled()
/// let custom = try Catalogue(json: Data(#"{"tracks": [], "artists": [], "playlists": []}"#.utf8))
/// ```
nonisolated public struct Catalogue: Codable, Sendable, Equatable {
  /// Every track, in recently played order (most recent first).
  public var tracks: [Track]
  /// The artists in the listener's library.
  public var artists: [Artist]
  /// The listener's playlists.
  public var playlists: [Playlist]

  /// Creates a catalogue from values; see ``validate()`` for the rules they must follow.
  public init(tracks: [Track], artists: [Artist], playlists: [Playlist]) {
    self.tracks = tracks
    self.artists = artists
    self.playlists = playlists
  }

  /// Decodes and validates a catalogue from JSON.
  ///
  /// - Throws: ``CatalogueError/undecodable(resource:reason:)`` naming the failing coding path,
  ///   or one of the errors of ``validate()``.
  public init(json data: Data, resource: String = "catalogue.json") throws(CatalogueError) {
    // NB: JSONDecoder (Swift 6.3, Linux) traps on input whose 513th nesting level is an array
    // opened by the last byte; no valid JSON ends with "[", so refuse it first.
    guard data.last != UInt8(ascii: "[") else {
      throw .undecodable(resource: resource, reason: "the JSON ends inside an unclosed array.")
    }
    do {
      self = try JSONDecoder().decode(Catalogue.self, from: data)
    } catch {
      throw .undecodable(resource: resource, reason: CatalogueError.describe(error))
    }
    try validate()
  }

  /// The catalogue bundled with the module, from `Resources/catalogue.json`.
  ///
  /// - Throws: ``CatalogueError/missingResource(_:)`` when the file is not in the bundle, or the
  ///   errors of ``init(json:resource:)``.
  ///
  /// - Important: `@MainActor`, unlike the rest of this type. SwiftPM generates the `Bundle.module`
  ///   accessor inside this module, so it takes the module's default isolation (MainActor) and
  ///   cannot be read from a nonisolated function. Off the main actor, read the data yourself
  ///   and use ``init(json:resource:)``.
  @MainActor
  public static func bundled() throws(CatalogueError) -> Catalogue {
    let name = "catalogue.json"
    guard
      let url = Bundle.module.url(
        forResource: "catalogue", withExtension: "json", subdirectory: "Resources"),
      let data = try? Data(contentsOf: url)
    else { throw .missingResource(name) }
    return try Catalogue(json: data, resource: name)
  }

  /// Checks that identifiers are unique and every reference points at something that exists.
  ///
  /// - Throws: ``CatalogueError/duplicateTrack(_:)``, ``CatalogueError/unknownArtist(track:artistID:)``
  ///   or ``CatalogueError/unknownTrack(playlist:track:)`` for the first problem found.
  public func validate() throws(CatalogueError) {
    var seen = Set<TrackID>()
    for track in tracks where !seen.insert(track.id).inserted {
      throw .duplicateTrack(track.id)
    }
    let artistIDs = Set(artists.map(\.id))
    for track in tracks where !artistIDs.contains(track.artistID) {
      throw .unknownArtist(track: track.id, artistID: track.artistID)
    }
    for playlist in playlists {
      for trackID in playlist.trackIDs where !seen.contains(trackID) {
        throw .unknownTrack(playlist: playlist.id, track: trackID)
      }
    }
  }
}
