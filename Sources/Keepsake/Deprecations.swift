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

extension SharedLoadError {
  /// The same as ``init(keyID:url:underlying:)``.
  @available(*, deprecated, renamed: "init(keyID:url:underlying:)")
  public init(key: SharedKeyID, url: URL? = nil, underlying: any Error) {
    self.init(keyID: key, url: url, underlying: underlying)
  }
}

extension SharedConflict {
  /// The same as ``init(keyID:url:resolution:)``.
  @available(*, deprecated, renamed: "init(keyID:url:resolution:)")
  public init(key: SharedKeyID, url: URL?, resolution: Resolution) {
    self.init(keyID: key, url: url, resolution: resolution)
  }
}

extension SharedSaveError {
  /// The same as ``writeFailed(keyID:underlying:)``.
  @available(*, deprecated, renamed: "writeFailed(keyID:underlying:)")
  public static func writeFailed(key: SharedKeyID, underlying: any Error) -> SharedSaveError {
    .writeFailed(keyID: key, underlying: underlying)
  }
}
