import Foundation

/// A value shared by reference and, depending on its key, kept in memory, in a file or in
/// preferences.
///
/// Every `Shared` built from keys with the same identity in the same ``StorageContext`` is the
/// same reference: a change through one is seen by all at once. Change the value with
/// ``withLock(_:)``; read it with ``wrappedValue``, which takes part in Observation, so views and
/// view models update when it changes, also when another process changed the file.
///
/// ```swift
/// @Shared(.inMemory("count")) var count = 0
/// @Shared(.fileStorage(url)) var drafts: [Draft] = []
/// @Shared(.appStorage("hasSeenIntro")) var hasSeenIntro = false
///
/// $drafts.withLock { $0.append(draft) }
/// try await $drafts.save()  // returns when the bytes are durably on disk
/// ```
///
/// Loading and saving can fail, and failures are visible in ``loadError`` and ``saveError``.
/// Data that exists but cannot be read is never overwritten: the key keeps the default in
/// memory and saves nothing over it until the app calls ``replaceUnreadableData()``.
///
/// A `Shared` projects: `$settings.theme` is a `Shared<Theme>` that writes through to its
/// parent and is saved by the parent's key, and ``elements`` (or `$drafts[id:]`) gives a
/// reference to each element of an `Identifiable` collection.
///
/// `Shared` is `Sendable`; all its members may be used from any isolation.
@propertyWrapper
@dynamicMemberLookup
public struct Shared<Value: Sendable>: Sendable {
  /// The reference of the key, or of a projection (see ``SharedReference/projection``).
  @usableFromInline let reference: SharedReference<Value>

  @usableFromInline init(reference: SharedReference<Value>) {
    self.reference = reference
  }

  /// A `Shared` of a part of another's value.
  @usableFromInline
  init(projection: SharedProjection<Value>) {
    self.reference = SharedReference(projecting: projection)
  }

  /// The reference of the key that stores the value (the parent's, for a projection).
  var root: any SharedRoot { reference.projection?.root ?? reference }

  /// A shared value stored by `key`, with a default used when nothing is stored.
  ///
  /// The first `Shared` of a key in a context reads the stored value synchronously; later ones
  /// reuse that reference and ignore `wrappedValue`.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.reference = StorageContext.current.reference(for: key, default: wrappedValue)
  }

  /// A shared value stored by `key`, with a default used when nothing is stored.
  public init(_ key: some SharedKey<Value>, default: @autoclosure () -> Value) {
    self.reference = StorageContext.current.reference(for: key, default: `default`)
  }

  /// A shared reference to `value` that is not stored anywhere and not found by any key.
  public init(value: Value) {
    self.reference = SharedReference(
      key: UnkeyedValue<Value>(), context: StorageContext.current, default: { value })
  }

  /// A snapshot of the current value; change it with ``withLock(_:)``.
  public var wrappedValue: Value { reference.value }

  /// The `Shared` itself, for `$value.withLock { ... }` and the other members; assign another
  /// `Shared` to it to point the property at another key (`$user = Shared(.fileStorage(url))`).
  public var projectedValue: Shared<Value> {
    get { self }
    set { self = newValue }
  }

  /// Points this `Shared` at another key, in the same storage context, and reads it: for a
  /// view model that switches files (another account, another document).
  ///
  /// ```swift
  /// try await $user.load(.fileStorage(otherAccountURL))
  /// ```
  ///
  /// The new key's value is read now; when nothing is stored, the value is this `Shared`'s own
  /// default. Other `Shared`s of the old key are not affected.
  ///
  /// - Throws: ``SharedLoadError`` when the new key's data exists but cannot be read (this
  ///   `Shared` then points at it, protected, as any key with unreadable data is).
  public mutating func load(_ key: some SharedKey<Value>) async throws {
    let fallback = reference.projection?.value ?? reference.fallback
    let context = storageContext
    self = StorageContext.withValue(context) { Shared(key, default: fallback) }
    if let loadError { throw loadError }
  }

  /// Changes the value under its lock; the change is seen by every reference at once and saved
  /// in the background (never on this thread for file keys).
  ///
  /// > Important: The lock is not reentrant. Do not use this `Shared`, or another `Shared` of
  /// > the same key or a projection of it, inside `body`: that is a programming error, and the
  /// > process stops with "Recursive call to lock Mutex" rather than deadlock silently.
  @inlinable
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try reference.withLock(body)
  }

  /// A shared reference to a part of the value, written through to this one and saved by its
  /// key: `$settings.theme`.
  ///
  /// Observers of either are told of a change through either.
  @inlinable
  public subscript<Member: Sendable>(
    dynamicMember keyPath: WritableKeyPath<Value, Member>
  ) -> Shared<Member> {
    Shared<Member>(projection: MemberProjection(parent: self, keyPath: keyPath))
  }

  /// The identity of the key, or a unique identity for a `Shared(value:)`.
  public var keyID: SharedKeyID { root.keyID }

  /// The context the reference was created in; it stays the same in any task or thread.
  public var storageContext: StorageContext { root.context }

  /// Why the stored data could not be read, or `nil`; observable.
  ///
  /// While it is set, the key is protected: nothing is saved over the stored data.
  public var loadError: SharedLoadError? { root.loadError }

  /// Why the last save failed, or `nil` once a save succeeds; observable.
  public var saveError: SharedSaveError? { root.saveError }

  /// Reads the stored value again, replacing the value in memory when something is stored.
  ///
  /// A change still pending here is never dropped: it meets what is stored the way a save meets
  /// another process's change (merged, or both kept), and `load` returns once that is saved.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read (the key is then
  ///   protected and the value in memory is kept); ``SharedSaveError`` when a pending change met
  ///   the stored data and could not be saved.
  public func load() async throws { try await root.load() }

  /// Saves the current value and returns once it is durably stored (for files: written to a
  /// temporary file, flushed, renamed over the file and the folder flushed).
  ///
  /// - Throws: ``SharedSaveError/protected(_:)`` when the stored data could not be read (it is
  ///   left untouched), or ``SharedSaveError/writeFailed(keyID:underlying:)``; the previously
  ///   stored data is intact either way.
  public func save() async throws { try await root.save() }

  /// Writes a pending change now, if there is one, and waits for it.
  ///
  /// Every `flush` in Keepsake keeps one contract: it writes what is pending, waits, and throws
  /// what the write ran into (``StorageContext/flush()`` throws the first of its keys' errors,
  /// after flushing them all). The error also stays in ``saveError`` until a save succeeds.
  /// With nothing pending it returns at once and throws nothing, even for protected data.
  ///
  /// - Throws: ``SharedSaveError``: ``SharedSaveError/protected(_:)`` when the stored data
  ///   could not be read (it is left untouched), else ``SharedSaveError/writeFailed(keyID:underlying:)``.
  public func flush() async throws { try await root.flush() }

  /// Whether the first load is still under way, for keys that load in the background
  /// (`.fileStorage(url, loadsInBackground: true)`, reader keys); observable.
  ///
  /// The value is the default until the load arrives. A change made meanwhile is kept: it meets
  /// the loaded value the way a change meets another process's save (merged, or both kept).
  public var isLoading: Bool { root.isLoading }

  /// Why changes other processes make to the stored data are not seen right now, or `nil`
  /// while they are.
  ///
  /// Set when the system refuses another watch (on Linux, past `fs.inotify.max_user_watches`),
  /// and cleared once a retry succeeds. Not observable: read it when showing a key's status. A
  /// key without a watch still never overwrites another process's data, since every save
  /// compares the file first; it only sees their changes at its next save or ``load()``.
  public var watchError: (any Error)? { root.watchError }

  /// The last time another process changed the stored data while this one had a change to
  /// save, and what was done so that neither side's data was lost; observable.
  ///
  /// It stays until the next conflict. A file key merges values that can merge (see
  /// ``SharedMerge``) and otherwise keeps the other version as a conflict copy beside the file.
  public var lastConflict: SharedConflict? { root.lastConflict }

  /// Changes the value in a transaction that other processes cannot interleave with: under the
  /// file's cross-process lock, `body` runs on the freshest stored value, and the result is
  /// written durably before the lock is released and this method returns.
  ///
  /// Use it for read-modify-write that must not lose another process's change, the way a
  /// database transaction is used:
  ///
  /// ```swift
  /// try await $drafts.update { $0.append(draft) }
  /// ```
  ///
  /// `body` runs on a background queue with the value's lock held: keep it short, and do not use
  /// this `Shared` inside it. When it throws, the value is left as it was and the error is
  /// rethrown. For keys that are not files, `update` is ``withLock(_:)`` followed by ``save()``.
  ///
  /// - Throws: What `body` threw; ``SharedSaveError/protected(_:)`` when the stored data cannot
  ///   be read (then `body` does not run); ``SharedSaveError/writeFailed(keyID:underlying:)`` when
  ///   the lock could not be taken or the write failed (the file is then as it was before).
  public func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    if let projection = reference.projection { return try await projection.update(body) }
    return try await reference.update(body)
  }

  /// Runs `body` as one transaction on the stored value: the file's cross-process lock is held
  /// throughout, the value is first refreshed from the file, and every change `body` makes
  /// (through ``withLock(_:)``, a store's reducer, anything) is written durably before the lock
  /// is released.
  ///
  /// This is for work that cannot fit in ``update(_:)``'s synchronous closure, such as sending
  /// actions to a store:
  ///
  /// ```swift
  /// try await $drafts.withTransaction {
  ///   await store.send(.draftDiscarded(id)).finish()
  /// }
  /// ```
  ///
  /// Other processes' saves of the file wait until the transaction ends, so keep it short: no
  /// network requests or user interaction inside. `body` runs in the caller's isolation.
  ///
  /// A transaction is all or nothing: no intermediate value is ever written (coalesced saves and
  /// flushes wait for its end; ``save()`` and ``flush()`` inside it are part of it and return at
  /// once), a body that throws restores the value the transaction began with and writes nothing,
  /// and a process killed meanwhile leaves the file as it was. Every change of the value while it
  /// runs is part of it, whichever task makes it.
  ///
  /// - Throws: What `body` threw (then nothing it changed is kept); ``SharedSaveError`` when the
  ///   value could not be refreshed or written (then the change stays in memory, pending, and
  ///   ``saveError`` says so).
  public func withTransaction<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async throws -> R {
    try await root.withTransaction(isolation: isolation, body)
  }

  /// Starts over from stored data that could not be read: sets the damaged data aside (for a
  /// file, a quarantine copy beside it, named so a person can find and restore it) and saves the
  /// current value in its place.
  ///
  /// - Returns: Where the damaged data was put, if anywhere.
  /// - Throws: When the data could not be set aside or the new value could not be saved; the
  ///   damaged data is then still in place.
  @discardableResult
  public func replaceUnreadableData() async throws -> URL? {
    try await root.replaceUnreadableData()
  }
}

extension Shared: Equatable where Value: Equatable {
  /// Two shared values are equal when their current values are.
  public static func == (lhs: Shared, rhs: Shared) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}

extension Shared: CustomStringConvertible {
  public var description: String { "Shared<\(Value.self)>(\(keyID)): \(wrappedValue)" }
}

/// The key of a `Shared(value:)`: a unique identity, stored nowhere.
struct UnkeyedValue<Value: Sendable>: SharedKey {
  let id = SharedKeyID(kind: "value", name: UUID().uuidString)
  var saveTiming: SaveTiming { .never }
  func load(in context: StorageContext) throws -> Value? { nil }
  func save(_ value: Value, in context: StorageContext) throws {}
}
