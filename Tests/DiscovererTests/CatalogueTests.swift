import DiscovererFeature
import Foundation
import Testing

@MainActor
@Suite("Catalogue")
struct CatalogueTests {
  @Test("The bundled catalogue has 40 tracks, 8 artists and 3 playlists")
  func bundled() throws {
    let catalogue = try Catalogue.bundled()
    #expect(catalogue.tracks.count == 40)
    #expect(catalogue.artists.count == 8)
    #expect(catalogue.playlists.map(\.name) == ["Morning Focus", "Road Trip", "Deep Cut Atlas"])
  }

  @Test(
    "Bad data gives an error that names what to fix",
    arguments: [
      (
        #"{"tracks": [], "artists": []}"#,
        "The catalogue catalogue.json could not be decoded: missing key 'playlists' at the top level."
      ),
      (
        #"{"tracks": [{"id": "t1", "title": "A", "artistID": "a", "album": "B"}], "artists": [], "playlists": []}"#,
        "The catalogue catalogue.json could not be decoded: missing key 'durationSeconds' at tracks[0]."
      ),
      (
        #"{"tracks": [], "artists": [{"id": "a", "name": 3, "genre": "x"}], "playlists": []}"#,
        "The catalogue catalogue.json could not be decoded: expected String at artists[0].name."
      ),
      (
        #"{"tracks": [{"id": "t1", "title": "A", "artistID": "nobody", "album": "B", "durationSeconds": 1}], "artists": [], "playlists": []}"#,
        "The track t1 names the artist nobody, which the catalogue does not have."
      ),
      (
        #"{"tracks": [], "artists": [], "playlists": [{"id": "p1", "name": "P", "trackIDs": ["t9"]}]}"#,
        "The playlist p1 lists the track t9, which the catalogue does not have."
      ),
    ])
  func badData(json: String, message: String) {
    #expect {
      try Catalogue(json: Data(json.utf8))
    } throws: { error in
      (error as? CatalogueError)?.description == message
    }
  }

  @Test("Text that is not JSON is an error, not a crash")
  func notJSON() {
    #expect(throws: CatalogueError.self) {
      try Catalogue(json: Data("tracks: none".utf8))
    }
  }

  @Test("Two tracks with one identifier are refused")
  func duplicateTrack() {
    let track = Track(id: "t1", title: "A", artistID: "a", album: "B", durationSeconds: 1)
    let catalogue = Catalogue(
      tracks: [track, track], artists: [Artist(id: "a", name: "A", genre: "G")], playlists: [])
    #expect(throws: CatalogueError.duplicateTrack("t1")) { try catalogue.validate() }
  }
}
