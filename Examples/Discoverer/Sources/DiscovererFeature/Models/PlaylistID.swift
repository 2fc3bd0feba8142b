/// The identifier of a playlist, such as `playlist.road-trip`.
///
/// A distinct type rather than a bare `String`, so a track identifier cannot be passed where a
/// playlist is expected. It encodes as a plain JSON string.
///
/// Nonisolated: identifiers are plain values, usable from any executor.
nonisolated public struct PlaylistID: RawRepresentable, Codable, Hashable, Sendable,
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

  /// Lets tests and previews write `"playlist.road-trip"` where a `PlaylistID` is expected.
  public init(stringLiteral rawValue: String) {
    self.rawValue = rawValue
  }

  /// The raw identifier.
  public var description: String { rawValue }
}
