import Foundation

/// A strategy for keeping a shared value somewhere: in memory, in a file, in preferences.
///
/// Apps mostly use the built-in keys, ``InMemoryKey`` (`.inMemory`), ``FileStorageKey``
/// (`.fileStorage`) and ``AppStorageKey`` (`.appStorage`), and name their own keys as static
/// members, the way Swift names colors:
///
/// ```swift
/// extension SharedKey where Self == FileStorageKey<[Draft]> {
///   static var drafts: Self { .fileStorage(.documentsDirectory.appending(path: "drafts.json")) }
/// }
///
/// @Shared(.drafts) var drafts = []
/// ```
///
/// A custom key implements loading and saving for one ``StorageContext``; ``Shared`` does the
/// rest (one reference per identity, locking, observation, coalesced background saves and the
/// protection of data it could not read). Requirements are called off the main actor, from any
/// thread.
public protocol SharedKey<Value>: Sendable {
  /// The type of the value the key stores.
  associatedtype Value: Sendable

  /// The identity of the stored value; equal identities share one reference.
  var id: SharedKeyID { get }

  /// How the key's saves are scheduled.
  var saveTiming: SaveTiming { get }

  /// Reads the stored value.
  ///
  /// - Returns: The value, or `nil` when nothing is stored yet (the default is then used and
  ///   nothing is written until the value is changed).
  /// - Throws: When something is stored but cannot be read. The key then becomes protected: nothing
  ///   is saved over the stored data until it becomes readable or the app replaces it explicitly
  ///   (data-safety rule "A file Keepsake cannot read is never overwritten"; see the Data safety
  ///   article).
  func load(in context: StorageContext) throws -> Value?

  /// Stores `value` durably.
  ///
  /// - Throws: When the value could not be stored; the previous stored value is intact.
  func save(_ value: Value, in context: StorageContext) throws

  /// Subscribes to changes made outside this process or reference; `onChange` may be called on
  /// any thread and asks the reference to reload.
  func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription?

  /// Sets the unreadable stored data aside so it can be replaced, returning where it was put.
  ///
  /// Called only when the app explicitly chooses to start over (data-safety rule "A damaged file is
  /// preserved before anything replaces it"; see the Data safety article).
  func quarantineUnreadable(in context: StorageContext) throws -> URL?

  /// Reads the stored value after ``subscribe(in:onChange:)`` reported a change.
  ///
  /// Return ``SharedLoadResult/unchanged`` when the stored data is what this key last read or
  /// wrote (a key's own save is also reported by most watchers).
  func reload(in context: StorageContext) throws -> SharedLoadResult<Value>
}

/// What a key found when it re-read its stored value.
public enum SharedLoadResult<Value: Sendable>: Sendable {
  /// The stored data is what the key last read or wrote.
  case unchanged
  /// Nothing is stored.
  case missing
  /// A new value.
  case value(Value)
}

extension SharedKey {
  public var saveTiming: SaveTiming { .immediate }

  public func subscribe(
    in context: StorageContext, onChange: @escaping @Sendable () -> Void
  ) -> StorageSubscription? { nil }

  public func quarantineUnreadable(in context: StorageContext) throws -> URL? { nil }

  public func reload(in context: StorageContext) throws -> SharedLoadResult<Value> {
    try load(in: context).map(SharedLoadResult.value) ?? .missing
  }
}

/// When a key's ``SharedKey/save(_:in:)`` runs after a mutation.
public enum SaveTiming: Equatable, Sendable {
  /// Never: the reference itself is the storage (in-memory keys).
  case never
  /// On the mutating thread, right after the mutation: for cheap stores that do no file I/O
  /// there (in-memory values, preferences that write in the background).
  case immediate
  /// In the background, at most once per `interval`, with the latest value: for files, so a
  /// burst of mutations does a handful of writes and none on the caller's thread.
  case coalesced(interval: Duration)
}
