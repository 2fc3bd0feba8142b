/// The identifier of a track in the music service's catalogue, such as `track.0101`.
///
/// A distinct type rather than a bare `String`, so a playlist identifier cannot be passed where a
/// track is expected. It encodes as a plain JSON string.
///
/// Nonisolated: identifiers are plain values, usable from any executor.
nonisolated public struct TrackID: RawRepresentable, Codable, Hashable, Sendable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  /// The identifier as the service spells it.
  public var rawValue: String

  /// Wraps an identifier as the service spells it.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Wraps an identifier as the service spells it.
  public init(_ rawValue: String) {
    self.rawValue = rawValue
  }

  /// Lets tests and previews write `"track.0101"` where a `TrackID` is expected.
  public init(stringLiteral rawValue: String) {
    self.rawValue = rawValue
  }

  /// The raw identifier.
  public var description: String { rawValue }
}
