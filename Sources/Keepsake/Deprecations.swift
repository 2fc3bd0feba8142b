import Foundation

// Renamed API, kept working through forwarding declarations so existing code still compiles
// (with a warning that names the new spelling). Every rename is listed in CHANGELOG.md; the
// words themselves are defined in the Glossary article.

// MARK: - Isolated storage: "ephemeral" became "in-memory" and "isolated"

/// Renamed ``InMemoryPreferences``.
@available(*, deprecated, renamed: "InMemoryPreferences")
public typealias EphemeralPreferences = InMemoryPreferences

extension StorageContext {
  /// Renamed ``isIsolated``: it is also true for confined storage on the real disk.
  @available(*, deprecated, renamed: "isIsolated")
  public var isEphemeral: Bool { isIsolated }

  /// Renamed ``init(name:fileSystem:isIsolated:preferences:)``.
  @available(*, deprecated, renamed: "init(name:fileSystem:isIsolated:preferences:)")
  public convenience init(
    name: String,
    fileSystem: any FileSystem,
    isEphemeral: Bool,
    preferences: @escaping @Sendable (_ suiteName: String?) -> any PreferencesStore
  ) {
    self.init(name: name, fileSystem: fileSystem, isIsolated: isEphemeral, preferences: preferences)
  }

  /// Renamed ``inMemory(name:fileSystem:)``.
  @available(*, deprecated, renamed: "inMemory(name:fileSystem:)")
  public static func ephemeral(
    name: String = "in memory", fileSystem: any FileSystem = InMemoryFileSystem()
  ) -> StorageContext {
    inMemory(name: name, fileSystem: fileSystem)
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

// NB: the three spellings below are to be deprecated (renamed to their `keyID:` forms) as soon
// as the shared reference's own call sites use `keyID:`; they are in the files being split at
// the time of the rename, so marking these deprecated now would make the build warn.

extension SharedLoadError {
  /// The same as ``init(keyID:url:underlying:)``, whose spelling is preferred.
  public init(key: SharedKeyID, url: URL? = nil, underlying: any Error) {
    self.init(keyID: key, url: url, underlying: underlying)
  }
}

extension SharedConflict {
  /// The same as ``init(keyID:url:resolution:)``, whose spelling is preferred.
  public init(key: SharedKeyID, url: URL?, resolution: Resolution) {
    self.init(keyID: key, url: url, resolution: resolution)
  }
}

extension SharedSaveError {
  /// The same as ``writeFailed(keyID:underlying:)``, whose spelling is preferred.
  public static func writeFailed(key: SharedKeyID, underlying: any Error) -> SharedSaveError {
    .writeFailed(keyID: key, underlying: underlying)
  }
}
