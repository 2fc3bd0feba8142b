/// The identity of a shared key within a storage context: keys with equal identities share one
/// reference.
public struct SharedKeyID: Hashable, Sendable, CustomStringConvertible {
  /// The kind of storage, such as `file`, `appStorage` or `inMemory`.
  public var kind: String
  /// What names the stored value within its kind: a path, a suite and key, a name.
  public var name: String

  /// Creates an identity.
  public init(kind: String, name: String) {
    self.kind = kind
    self.name = name
  }

  public var description: String { "\(kind)(\(name))" }
}
