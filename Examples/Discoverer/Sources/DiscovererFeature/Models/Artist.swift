/// A performer in the listener's library.
///
/// Nonisolated so artists can be decoded and compared off the main actor.
nonisolated public struct Artist: Identifiable, Codable, Sendable, Equatable, Hashable {
  /// The artist's identifier in the catalogue, such as `artist.lumen-tide`.
  public var id: String
  /// The name shown to the listener.
  public var name: String
  /// A broad genre, for grouping.
  public var genre: String

  /// Creates an artist.
  public init(id: String, name: String, genre: String) {
    self.id = id
    self.name = name
    self.genre = genre
  }
}
