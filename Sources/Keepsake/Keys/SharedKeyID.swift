/// The identity of a shared key within a storage context: keys with equal identities share one
/// reference.
public struct SharedKeyID: Hashable, Sendable, CustomStringConvertible {
  /// The kind of storage, such as `file`, `appStorage` or `inMemory`.
  public var kind: String
  /// What names the stored value within its kind: a path, a suite and key, a name.
  ///
  /// For a file key, the path of its file with every symbolic link followed, so that every
  /// spelling of one file is one identity (see ``FileStorageKey/id``).
  public var name: String

  /// Creates an identity.
  public init(kind: String, name: String) {
    self.kind = kind
    self.name = name
  }

  public var description: String { "\(kind)(\(name))" }

  /// Hashes the name alone: identities of one name and different kinds are rare, and equality
  /// still tells them apart.
  ///
  /// NB: a context finds a key's reference by its identity on every creation; hashing both
  /// strings cost every key more, and as much again each time the context's table grows.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
  }
}
