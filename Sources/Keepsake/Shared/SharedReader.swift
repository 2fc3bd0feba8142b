import Foundation

/// Read-only access to a shared value: for code that may observe a key but must not change it.
///
/// ```swift
/// @SharedReader(.appStorage("isPro")) var isPro = false
/// @SharedReader(RemoteConfigKey()) var flags: Flags = .defaults   // a SharedReaderKey
/// let isEmpty = $drafts.read { $0.isEmpty }                        // derived, follows $drafts
/// ```
///
/// A reader of a key is the key's reference, like a ``Shared`` of it: it shows every change,
/// from any reference, thread or process. Assigning another reader to `$value` (or
/// `load(_:)`) points this reader and its copies at another key;
/// a reader made from a `Shared` is a reader of that `Shared`'s current key and does not follow
/// when the `Shared` is pointed elsewhere later, as in swift-sharing.
///
/// `SharedReader` is `Sendable`; all its members are nonisolated.
@propertyWrapper
@dynamicMemberLookup
public struct SharedReader<Value: Sendable>: Sendable {
  /// The shared value read, with this reader's own cell (or none, for a projection); never
  /// written through this reader.
  @usableFromInline var shared: Shared<Value>

  @usableFromInline init(shared: Shared<Value>) {
    self.shared = shared
  }

  /// A reader of a part of another value: a read-only projection, a derived value.
  @usableFromInline init(projection: SharedTarget<Value>) {
    self.shared = Shared(projection: projection)
  }

  /// Read-only access to the value stored by `key`, with a default used when nothing is stored.
  ///
  /// Nonisolated.
  public init(
    wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      shared: Shared(
        key, default: wrappedValue(), fileID: fileID, filePath: filePath, line: line,
        column: column))
  }

  /// Read-only access to the value stored by `key`, with a default used when nothing is stored.
  ///
  /// Nonisolated.
  public init(
    _ key: some SharedKey<Value>, default: @autoclosure () -> Value,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      shared: Shared(
        key, default: `default`(), fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Read-only access to what `shared` reads now.
  ///
  /// Nonisolated.
  public init(_ shared: Shared<Value>) {
    self.init(shared: Shared(ownCellFor: shared.current))
  }

  /// A reader of `value`, stored nowhere: for previews and tests.
  ///
  /// Nonisolated.
  public init(value: Value) {
    self.init(shared: Shared(value: value))
  }

  /// The same reader as `projectedValue`: what Swift calls for a `@SharedReader` parameter given
  /// `$value`.
  ///
  /// Nonisolated.
  public init(projectedValue: SharedReader<Value>) {
    self = projectedValue
  }

  /// A reader of the value of `base` while it is not `nil`, or `nil` when it is.
  ///
  /// Nonisolated.
  public init?(_ base: Shared<Value?>) {
    guard let unwrapped = Shared(base) else { return nil }
    self.init(shared: unwrapped)
  }

  /// A reader of the value of `base` while it is not `nil`, or `nil` when it is.
  ///
  /// Nonisolated.
  public init?(_ base: SharedReader<Value?>) {
    self.init(base.shared)
  }

  /// A reader of `value`, stored nowhere.
  @available(*, deprecated, renamed: "init(value:)")
  public static func constant(_ value: Value) -> SharedReader<Value> {
    SharedReader(value: value)
  }

  /// The current value.
  ///
  /// Nonisolated; reading takes part in Observation.
  @inlinable public var wrappedValue: Value { shared.wrappedValue }

  /// The reader itself, for `$value.loadError` and the other members; assign another reader to
  /// point this one and its copies at another key.
  public var projectedValue: SharedReader<Value> {
    get { self }
    set { shared.rebind(to: newValue.shared.current) }
  }

  /// Read-only access to a part of the value: `$settings.theme`.
  ///
  /// Nonisolated.
  @inlinable
  public subscript<Member: Sendable>(
    dynamicMember keyPath: KeyPath<Value, Member>
  ) -> SharedReader<Member> {
    SharedReader<Member>(shared: shared.readOnly(keyPath))
  }

  /// A reader of a value computed from this one, which follows it: observers of the derived reader
  /// are told when this value changes.
  ///
  /// Nonisolated.
  ///
  /// ```swift
  /// let hasDrafts = $drafts.read { !$0.isEmpty }   // SharedReader<Bool>
  /// ```
  ///
  /// `body` runs on each read, on the reading thread; keep it cheap.
  public func read<Member: Sendable>(
    _ body: @escaping @Sendable (Value) -> Member
  ) -> SharedReader<Member> {
    shared.read(body)
  }

  /// The identity of the key.
  public var keyID: SharedKeyID { shared.keyID }

  /// The context the reference was created in.
  public var storageContext: StorageContext { shared.storageContext }

  /// Why the stored data could not be read, or `nil`; observable.
  ///
  /// For a reader key, the error of the last load or push, kept until one succeeds.
  public var loadError: SharedLoadError? { shared.loadError }

  /// Whether a load is under way (the first load of a key that loads in the background, a
  /// reader key's ``load()``, or a key that said it is loading again); observable.
  public var isLoading: Bool { shared.isLoading }

  /// The current value first, then the value after each change; see ``Shared/values``.
  public var values: AsyncStream<Value> { shared.values }

  /// Reads the stored value again; for a reader key, calls its `load()` again, with
  /// ``isLoading`` true until it returns.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read, or when a reader
  ///   key's load throws (the value is then kept, and the error stays in ``loadError`` until a
  ///   load succeeds).
  public func load() async throws { try await shared.load() }

  /// Points this reader and every copy of it at `key` and reads it; see ``Shared/load(_:)``.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read;
  ///   ``SharedRebindingError`` for a reader of a part of another value.
  public func load(_ key: some SharedKey<Value>) async throws {
    try await shared.load(key)
  }
}

extension SharedReader: Equatable where Value: Equatable {
  /// Two readers are equal when their current values are.
  public static func == (lhs: SharedReader, rhs: SharedReader) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}

extension SharedReader {
  /// The key as the app writes it; see `Shared.keyDescription`.
  package var keyDescription: String { shared.keyDescription }
}

extension SharedReader: CustomStringConvertible {
  /// The type and the key as an app writes them: `SharedReader<Int>(.appStorage("count"))`.
  public var description: String {
    "SharedReader<\(Value.self)>(\(shared.current.description))"
  }
}

extension SharedReader: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}

extension Shared {
  /// Read-only access to what this `Shared` reads now.
  ///
  /// Nonisolated.
  public var reader: SharedReader<Value> { SharedReader(self) }

  /// A reader of a value computed from this one, which follows it: `$drafts.read { $0.isEmpty }`.
  ///
  /// Nonisolated; `body` runs on each read, on the reading thread.
  public func read<Member: Sendable>(
    _ body: @escaping @Sendable (Value) -> Member
  ) -> SharedReader<Member> {
    let parent = current
    return SharedReader(
      projection: SharedTarget(
        root: parent.root,
        path: SharedPath(
          state: DerivedPart(parent: parent, body: body), offset: -1,
          read: { _, state, _ in unsafeDowncast(state, to: DerivedPart<Value, Member>.self).read()
          },
          modify: { _, _, _, _ in preconditionFailure("a derived reader is never changed") })))
  }
}

/// A value computed from another shared value.
final class DerivedPart<Parent: Sendable, Value: Sendable>: Sendable, DescribedPart {
  let parent: SharedTarget<Parent>
  let body: @Sendable (Parent) -> Value

  init(parent: SharedTarget<Parent>, body: @escaping @Sendable (Parent) -> Value) {
    self.parent = parent
    self.body = body
  }

  func read() -> Value { body(parent.value) }

  var partDescription: String {
    parent.pathDescription + ".read(as: \(Value.self).self)"
  }
}
