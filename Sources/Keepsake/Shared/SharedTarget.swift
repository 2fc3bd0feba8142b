import Foundation

/// What every key's reference offers whatever its value type: the members a ``Shared`` forwards
/// to the reference of the key that stores its value (for a projection, its root's).
protocol SharedRoot: AnyObject, Sendable {
  var keyID: SharedKeyID { get }
  var context: StorageContext { get }
  var loadError: SharedLoadError? { get }
  var saveError: SharedSaveError? { get }
  var lastConflict: SharedConflict? { get }
  func conflicts() -> AsyncStream<SharedConflict>
  var watchError: (any Error)? { get }
  var isLoading: Bool { get }
  /// The key as an app writes it (`.appStorage("count")`), or `value: 0` for a `Shared(value:)`.
  var keyDescription: String { get }
  /// The key as an app writes it, or `value` for a `Shared(value:)`: for renderings that show
  /// the value beside it.
  var keyName: String { get }
  func load() async throws
  func save() async throws
  func flush() async throws
  func replaceUnreadableData() async throws -> URL?
  func withTransaction<R>(
    isolation: isolated (any Actor)?, _ body: () async throws -> R
  ) async throws -> R
  /// Calls `onChange` after every change of the value, on the changing thread.
  func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> StorageSubscription
}

extension SharedReference: SharedRoot {
  var keyID: SharedKeyID { key.id }
  var keyDescription: String { SharedDescription.key(key, value: peek()) }
  var keyName: String { key is UnkeyedValue<Value> ? "value" : String(reflecting: key) }
  /// For ``SharedChangeTrackable``.
  var trackedKeyDescription: String { keyName }
}

/// Where a ``Shared`` reads and changes its value: a key's reference, or a part of the value of
/// another (a projection).
///
/// NB: a projection is a value, not an object: `$settings.theme` is the settings key's reference
/// and a ``SharedPath`` whose accessors are made, specialized, where the member's type is known.
/// Building one allocates nothing: a reference per projection made the inline form
/// `$settings.theme.withLock { ... }` pay an allocation and a lookup on every call.
@usableFromInline
struct SharedTarget<Value: Sendable>: @unchecked Sendable {
  // NB: unchecked for `object`, which is always a `SharedReference` (Sendable), typed
  // `AnyObject` so a projection's root can be of any value type; `path` is Sendable.
  /// The reference of the key that stores the value (a `SharedReference` of its value type);
  /// for a projection its root: a reference, or the ``SharedCell`` whose first target is one.
  @usableFromInline let object: AnyObject
  /// How to reach the value from `object`, or `nil` when `object` holds this very value.
  @usableFromInline let path: SharedPath<Value>?

  @inlinable init(object: AnyObject, path: SharedPath<Value>?) {
    self.object = object
    self.path = path
  }

  init(root: any SharedRoot, path: SharedPath<Value>?) {
    self.init(object: root, path: path)
  }

  /// The root, for the members every reference has.
  ///
  /// NB: a cast, not a stored existential, so ``SharedRoot``'s members need not be
  /// `@usableFromInline`; it is never on the path of a read or a change.
  var root: any SharedRoot {
    if let root = object as? any SharedRoot { return root }
    if let cell = object as? any SharedCellRoot { return cell.initialRoot }
    preconditionFailure("a Shared's root is a reference or a cell, not \(type(of: object))")
  }

  /// The value of the key's reference; see ``value``.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable var referenceValue: Value { reference.value }

  /// Changes the value of the key's reference under its lock.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable func referenceWithLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try reference.withLockOneUse(body)
  }

  /// The key's own reference.
  @inlinable init(reference: SharedReference<Value>) {
    self.object = reference
    self.path = nil
  }

  /// `root` as the reference of this value's key.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable var reference: SharedReference<Value> {
    unsafeDowncast(object, to: SharedReference<Value>.self)
  }

  /// The value, read under its lock; the read takes part in Observation.
  @inlinable var value: Value {
    // NB: `path!` after the check: binding the path retained its state and accessors.
    guard path != nil else { return reference.value }
    return path!.read(object, path!.state, path!.offset)
  }

  /// Changes the value under its root's lock.
  @inlinable func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    guard path != nil else { return try reference.withLock(body) }
    return try path!.change(object, body)
  }

  /// The reference of the key, when this is not a projection.
  var keyReference: SharedReference<Value>? { path == nil ? reference : nil }

  /// The default a rebinding to another key falls back on: the key's own default, or for a
  /// projection its current value.
  var fallback: Value { keyReference?.fallback ?? value }

  var description: String { root.keyDescription + pathDescription }

  /// ``description`` without a `Shared(value:)`'s value.
  var name: String { root.keyName + pathDescription }

  /// The part of ``description`` after the key: the path from the key's value to this one.
  ///
  /// NB: a projection rooted at a cell made for it (see `Shared.memberRoot`) starts where the
  /// cell's target does.
  var pathDescription: String {
    let start = (object as? any SharedCellRoot)?.initialPathDescription ?? ""
    return start + (path.map { SharedDescription.path($0.state) } ?? "")
  }
}

/// How a projection reaches its value inside its root's: accessors made where the types are
/// known, and what they need besides the root.
///
/// A member projection's accessors capture nothing (they are plain functions, so making one
/// allocates nothing) and get the member's key path and byte offset as arguments; a stored
/// member's use only the offset. Other projections (an element followed by its `id`, an
/// unwrapped optional, a derived reader) keep what they need in `state`.
@usableFromInline
struct SharedPath<Value: Sendable>: @unchecked Sendable {
  // NB: unchecked for `state`: a key path (immutable; not yet marked Sendable by the standard
  // library) or a part object that is itself Sendable.
  /// The member's key path, or the state object of another kind of projection.
  @usableFromInline let state: AnyObject
  /// The member's byte offset inside the root's value, or -1 when it has none (a computed
  /// member); see `MemoryLayout.offset(of:)`.
  @usableFromInline let offset: Int
  /// Reads the part; takes part in Observation (as a read of the root).
  @usableFromInline let read:
    @Sendable (_ root: AnyObject, _ state: AnyObject, _ offset: Int) -> Value
  /// Changes the part under the root's lock, and returns `nil`; when the part is gone, runs
  /// `body` on a copy of its last value and returns what is missing.
  ///
  /// `body` gets the address of the part, a `Value`, valid while it runs.
  ///
  /// NB: an address rather than `inout Value`, so the caller's closure is typed by the part
  /// alone and is the one place the change is written (specialized where the caller wrote it).
  @usableFromInline let modify:
    @Sendable (_ root: AnyObject, _ state: AnyObject, _ offset: Int, _ body: Change) throws ->
      PartGone?

  /// What ``modify`` runs on the part: its address.
  @usableFromInline typealias Change = (UnsafeMutableRawPointer) throws -> Void

  @inlinable
  init(
    state: AnyObject, offset: Int,
    read: @escaping @Sendable (AnyObject, AnyObject, Int) -> Value,
    modify: @escaping @Sendable (AnyObject, AnyObject, Int, Change) throws -> PartGone?
  ) {
    self.state = state
    self.offset = offset
    self.read = read
    self.modify = modify
  }

  /// Runs `body` on the part with `body`'s own error type; a change to a part that is gone is
  /// dropped, with a warning.
  ///
  /// NB: always inlined, so where a member projection is made and changed at once the
  /// caller's closure is called from its accessor without the wrapping closure's layers (see
  /// "Projections" in `Benchmarks/README.md`).
  @inlinable @inline(__always)
  func change<R, E: Error>(_ root: AnyObject, _ body: (inout Value) throws(E) -> R) throws(E) -> R {
    var result: R?
    let missing: PartGone?
    do {
      missing = try modify(root, state, offset) { part in
        result = try body(&part.assumingMemoryBound(to: Value.self).pointee)
      }
    } catch let error as E {
      throw error
    } catch {
      preconditionFailure("a projection's accessor threw \(error) of its own")
    }
    if let missing { missing.part.warnDropped() }
    guard let result else { preconditionFailure("a projection's accessor did not run the change") }
    return result
  }
}
