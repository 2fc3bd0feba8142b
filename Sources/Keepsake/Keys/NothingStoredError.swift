/// What `Shared(require:)` throws (inside a ``SharedLoadError``) when nothing is stored.
public struct NothingStoredError: Error, Sendable, CustomStringConvertible {
  public var description: String { "nothing is stored for this key yet." }
}
