import Foundation

// Renamed API, kept working through forwarding declarations so existing code still compiles
// (with a warning that names the new spelling). Every rename is listed in CHANGELOG.md; the
// words themselves are defined in the Glossary article.

// MARK: - Isolated storage: "ephemeral" became "in-memory" and "isolated"

extension StorageContext {
  /// Renamed ``isIsolated``: it is also true for confined storage on the real disk.
  @available(*, deprecated, renamed: "isIsolated")
  public var isEphemeral: Bool { isIsolated }

  /// Renamed ``inMemory(name:)``.
  @available(*, deprecated, renamed: "inMemory(name:)")
  public static func ephemeral(name: String = "in memory") -> StorageContext {
    inMemory(name: name)
  }
}

// MARK: - A key's identity is `keyID` everywhere

extension SharedLoadError {
  /// Renamed ``keyID``.
  @available(*, deprecated, renamed: "keyID")
  public var key: SharedKeyID {
    get { keyID }
    set { keyID = newValue }
  }
}

extension SharedConflict {
  /// Renamed ``keyID``.
  @available(*, deprecated, renamed: "keyID")
  public var key: SharedKeyID {
    get { keyID }
    set { keyID = newValue }
  }
}

extension MissingPart {
  /// Renamed ``keyID``.
  @available(*, deprecated, renamed: "keyID")
  public var key: SharedKeyID {
    get { keyID }
    set { keyID = newValue }
  }
}

extension SharedSaveError {
  /// The same as ``writeFailed(keyID:underlying:)``.
  @available(*, deprecated, renamed: "writeFailed(keyID:underlying:)")
  public static func writeFailed(key: SharedKeyID, underlying: any Error) -> SharedSaveError {
    .writeFailed(keyID: key, underlying: underlying)
  }
}
