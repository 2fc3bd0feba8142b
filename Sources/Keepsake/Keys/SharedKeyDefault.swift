import Foundation

/// A key together with its default, declared once, so `@Shared(.hasSeenIntro) var hasSeenIntro`
/// needs no `= false` at each use.
///
/// ```swift
/// extension SharedKey where Self == AppStorageKey<Bool>.Default {
///   static var hasSeenIntro: Self { Self[.appStorage("hasSeenIntro"), default: false] }
/// }
///
/// @Shared(.hasSeenIntro) var hasSeenIntro
/// ```
///
/// As with any key, the first `Shared` of the key in a context decides the default; a default
/// given at a use site (`@Shared(.hasSeenIntro) var seen = true`) wins only if it comes first.
public struct SharedKeyDefault<Base: SharedKey>: SharedKey {
  /// The key.
  public let base: Base
  private let makeDefault: @Sendable () -> Base.Value

  /// The key `base`, whose value is `defaultValue` while nothing is stored.
  public static subscript(
    _ base: Base, default defaultValue: @escaping @autoclosure @Sendable () -> Base.Value
  ) -> Self {
    Self(base: base, makeDefault: defaultValue)
  }

  /// The default.
  public var defaultValue: Base.Value { makeDefault() }

  public var id: SharedKeyID { base.id }
  public var saveTiming: SaveTiming { base.saveTiming }
  public func load(in context: StorageContext) throws -> Base.Value? { try base.load(in: context) }
  public func save(_ value: Base.Value, in context: StorageContext) throws {
    try base.save(value, in: context)
  }
  public func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? {
    base.subscribe(in: context, onChange: onChange)
  }
  public func quarantineUnreadable(in context: StorageContext) throws -> URL? {
    try base.quarantineUnreadable(in: context)
  }
  public func reload(in context: StorageContext) throws -> SharedLoadResult<Base.Value> {
    try base.reload(in: context)
  }
}

extension SharedKey {
  /// This key with a default declared once: `Self[.appStorage("isOn"), default: false]`.
  public typealias Default = SharedKeyDefault<Self>
}

extension Shared {
  /// A shared value stored by `key`, with the default declared by the key.
  public init<Base: SharedKey<Value>>(_ key: SharedKeyDefault<Base>) {
    // NB: the reference is the base key's, so a file key keeps its cross-process protocol.
    self.init(key.base, default: key.defaultValue)
  }

  /// A shared value stored by `key`; `wrappedValue` is the default if this is the key's first
  /// use in the context, else the key's own.
  public init<Base: SharedKey<Value>>(
    wrappedValue: @autoclosure () -> Value, _ key: SharedKeyDefault<Base>
  ) {
    self.init(key.base, default: wrappedValue())
  }

  /// The value stored by `key`, which must exist.
  ///
  /// ```swift
  /// let settings = try Shared(require: .fileStorage(settingsURL))
  /// ```
  ///
  /// A key already in use in the context is returned as it is. Nonisolated.
  ///
  /// - Throws: ``SharedLoadError`` when nothing is stored (its underlying error is
  ///   ``NothingStoredError``) or the stored data cannot be read.
  public init(require key: some SharedKey<Value>) throws {
    try self.init(requiring: key)
  }

  /// The value stored by `key`, which must exist: the form swift-sharing spells with `await` (`try
  /// await Shared(require: key)`).
  ///
  /// The key is read as the synchronous `init(require:)` reads it. Nonisolated.
  ///
  /// - Throws: ``SharedLoadError`` when nothing is stored (its underlying error is
  ///   ``NothingStoredError``) or the stored data cannot be read.
  public init(require key: some SharedKey<Value>) async throws {
    try self.init(requiring: key)
  }

  /// What both `init(require:)` do.
  init(requiring key: some SharedKey<Value>) throws {
    let context = StorageContext.current
    if let existing = context.existingReference(for: key) {
      self.init(reference: existing)
      return
    }
    let loaded: Value?
    do {
      loaded = try key.load(in: context)
    } catch let error as SharedLoadError {
      throw error
    } catch {
      throw SharedLoadError(keyID: key.id, underlying: error)
    }
    guard let loaded else { throw SharedLoadError(keyID: key.id, underlying: NothingStoredError()) }
    self.init(key, default: loaded)
  }
}

extension Shared {
  /// An optional shared value stored by `key`, `nil` while nothing is stored.
  ///
  /// Nonisolated.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedKey<Value>) where Value == Wrapped? {
    self.init(key, default: nil)
  }
}

extension SharedReader {
  /// Read-only access to an optional value stored by `key`, `nil` while nothing is stored.
  ///
  /// Nonisolated.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedKey<Value>) where Value == Wrapped? {
    self.init(shared: Shared(key, default: nil))
  }

  /// Read-only access to what `key` loads, `nil` until it has loaded a value.
  ///
  /// Nonisolated.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedReaderKey<Value>) where Value == Wrapped? {
    self.init(key, default: nil)
  }

  /// Read-only access to the value stored by `key`, with the default declared by the key.
  public init<Base: SharedKey<Value>>(_ key: SharedKeyDefault<Base>) {
    self.init(shared: Shared(key))
  }

  /// Read-only access to the value stored by `key`; `wrappedValue` is the default if this is the
  /// key's first use in the context.
  public init<Base: SharedKey<Value>>(
    wrappedValue: @autoclosure () -> Value, _ key: SharedKeyDefault<Base>
  ) {
    self.init(shared: Shared(key.base, default: wrappedValue()))
  }

  /// Read-only access to the value stored by `key`, which must exist; see
  /// `Shared(require:)`.
  ///
  /// Nonisolated.
  ///
  /// - Throws: ``SharedLoadError`` when nothing is stored (its underlying error is
  ///   ``NothingStoredError``) or the stored data cannot be read.
  public init(require key: some SharedKey<Value>) throws {
    self.init(shared: try Shared(requiring: key))
  }

  /// Read-only access to the value stored by `key`, which must exist, in swift-sharing's `try
  /// await` spelling.
  ///
  /// Nonisolated.
  ///
  /// - Throws: ``SharedLoadError`` when nothing is stored (its underlying error is
  ///   ``NothingStoredError``) or the stored data cannot be read.
  public init(require key: some SharedKey<Value>) async throws {
    self.init(shared: try Shared(requiring: key))
  }
}

extension SharedKeyDefault: CustomStringConvertible {
  /// The key's own description: the default is not part of what it names.
  public var description: String { String(reflecting: base) }
}

extension Shared {
  /// Not available: a key of a value that is not optional needs a default, for when nothing is
  /// stored yet.
  ///
  /// Write the default where the property is declared, or make the value optional:
  ///
  /// ```swift
  /// @Shared(.fileStorage(url)) var items: [Item] = []
  /// @Shared(.fileStorage(url)) var items: [Item]?
  /// ```
  ///
  /// To fail when nothing is stored rather than use a default, use `try Shared(require: key)`.
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "a key needs a default for when nothing is stored: write `@Shared(key) var name: Value = <default>`, make the value optional, or use `try Shared(require: key)`"
  )
  public init(_ key: some SharedKey<Value>) {
    // NB: unavailable, so never called; the compiler still asks for a body.
    fatalError("unavailable")
  }
}

extension SharedReader {
  /// Not available: a key of a value that is not optional needs a default; see
  /// `Shared.init(_:)`.
  @_disfavoredOverload
  @available(
    *, unavailable,
    message:
      "a key needs a default for when nothing is stored: write `@SharedReader(key) var name: Value = <default>`, make the value optional, or use `try SharedReader(require: key)`"
  )
  public init(_ key: some SharedKey<Value>) {
    // NB: unavailable, so never called; the compiler still asks for a body.
    fatalError("unavailable")
  }
}
