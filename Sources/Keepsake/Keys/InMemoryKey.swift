/// A key whose value lives in memory only, shared by name within a storage context.
///
/// The value lives as long as its context (for ``StorageContext/live``, the process), whether or
/// not anything holds the key: a key made again after every ``Shared`` of it was dropped has the
/// value and the default it had. A context that nothing holds any more is freed with its
/// values. Under test every test gets fresh in-memory values.
public struct InMemoryKey<Value: Sendable>: SharedKey {
  /// The name that identifies the value.
  public let name: String

  /// Creates a key for the in-memory value called `name`.
  public init(_ name: String) { self.name = name }

  public var id: SharedKeyID { SharedKeyID(kind: "inMemory", name: name) }
  public var saveTiming: SaveTiming { .never }
  public func load(in context: StorageContext) throws -> Value? { nil }
  public func save(_ value: Value, in context: StorageContext) throws {}
}

extension SharedKey {
  /// A value kept in memory and shared by `name`.
  ///
  /// ```swift
  /// @Shared(.inMemory("unreadCount")) var unreadCount = 0
  /// ```
  public static func inMemory<Value>(_ name: String) -> Self where Self == InMemoryKey<Value> {
    InMemoryKey(name)
  }
}

extension InMemoryKey: CustomStringConvertible {
  /// The key as an app writes it: `.inMemory("name")`.
  public var description: String { ".inMemory(\(SharedDescription.literal(name)))" }
}
