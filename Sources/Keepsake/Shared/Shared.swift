import Foundation
import Synchronization

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
/// parent and is saved by the parent's key, `$user.id` (a `let`) a ``SharedReader``, and
/// ``elements`` (or `$drafts[id:]`) gives a reference to each element of an `Identifiable`
/// collection.
///
/// A `Shared` can be pointed at another key (`$user = Shared(.fileStorage(url))`, or
/// ``load(_:)``), and every copy of it follows, as in swift-sharing.
///
/// `Shared` is `Sendable`; all its members are nonisolated and may be used from any isolation,
/// also in a module built with `.defaultIsolation(MainActor.self)`.
@propertyWrapper
@dynamicMemberLookup
public struct Shared<Value: Sendable>: @unchecked Sendable {
  // NB: unchecked for `object`, always Sendable (a `SharedCell` or a `SharedReference`) and
  // typed `AnyObject` so that one field serves both; `path` is Sendable.

  /// For a `Shared` made from a key or a value (`path == nil`): its ``SharedCell``, shared by its
  /// copies, which holds the key's reference.
  ///
  /// For a projection: its root's reference.
  ///
  /// NB: one reference-counted field, so copying a `Shared` (`model.$settings`) costs one
  /// retain, and the reads and changes of a key's `Shared` unwrap no optional (binding one
  /// retained and released it on every call, as costly as the rest of a mutation).
  @usableFromInline let object: AnyObject
  /// How a projection reaches its value from its root, or `nil` for a `Shared` with a cell.
  @usableFromInline let path: SharedPath<Value>?

  @usableFromInline init(object: AnyObject, path: SharedPath<Value>?) {
    self.object = object
    self.path = path
  }

  /// A `Shared` whose copies share `cell`.
  @usableFromInline init(cell: SharedCell<Value>) {
    self.init(object: cell, path: nil)
  }

  /// The `Shared` of a key's reference, with a cell of its own.
  ///
  /// NB: inlinable, so where the value's type is known the cell is allocated with metadata at
  /// hand, not looked up at run time.
  @inlinable init(reference: SharedReference<Value>) {
    self.init(cell: SharedCell(SharedTarget(reference: reference)))
  }

  /// A `Shared` of `target`: a projection, without a cell (or, for a key's own reference, with
  /// a cell of its own).
  @usableFromInline init(projection target: SharedTarget<Value>) {
    if target.path == nil {
      self.init(cell: SharedCell(target))
    } else {
      self.init(object: target.object, path: target.path)
    }
  }

  /// A `Shared` of `target` with a cell of its own: for a reader, whose rebinding must not move
  /// the `Shared` it was made from, and for a projection's variable that is rebound.
  init(ownCellFor target: SharedTarget<Value>) {
    self.init(cell: SharedCell(target))
  }

  /// The cell its copies share; `nil` for a projection.
  var cell: SharedCell<Value>? {
    path == nil ? unsafeDowncast(object, to: SharedCell<Value>.self) : nil
  }

  /// What this `Shared` reads and changes now: what it was made with, or what a copy of it was
  /// pointed at.
  @inlinable var current: SharedTarget<Value> {
    guard path == nil else { return SharedTarget(object: object, path: path) }
    return unsafeDowncast(object, to: SharedCell<Value>.self).current
  }

  /// The reference of the key that stores the value (the root's, for a projection).
  var root: any SharedRoot { current.root }

  /// A shared value stored by `key`, with a default used when nothing is stored.
  ///
  /// The first `Shared` of a key in a context reads the stored value synchronously; later ones
  /// reuse that reference and ignore `wrappedValue`. Nonisolated.
  // NB: inlinable, like the reference's lookup it calls: see `StorageContext.reference(for:)`.
  ///
  /// The place of the call is for one message: a key made under test where no test can be found
  /// (a detached task, a plain thread) is reported there, since tests could see each other's
  /// values through it.
  @inlinable
  public init(
    wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let context = StorageContext.current(
      making: key.id, fileID: fileID, filePath: filePath, line: line, column: column)
    self.init(reference: context.reference(for: key, default: wrappedValue))
  }

  /// A shared value stored by `key`, with a default used when nothing is stored.
  ///
  /// Nonisolated.
  // NB: inlinable, like the reference's lookup it calls: see `StorageContext.reference(for:)`.
  @inlinable
  public init(
    _ key: some SharedKey<Value>, default: @autoclosure () -> Value,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    let context = StorageContext.current(
      making: key.id, fileID: fileID, filePath: filePath, line: line, column: column)
    self.init(reference: context.reference(for: key, default: `default`))
  }

  /// A shared reference to `value` that is not stored anywhere and not found by any key.
  ///
  /// Nonisolated.
  public init(value: Value) {
    self.init(
      reference: SharedReference(
        key: UnkeyedValue<Value>(), shared: nil, context: StorageContext.current,
        default: { value }, inMemory: false))
  }

  /// The same `Shared` as `projectedValue`: what Swift calls for a `@Shared` parameter given
  /// `$value`.
  ///
  /// Copies made this way follow when either is pointed at another key.
  public init(projectedValue: Shared<Value>) {
    self = projectedValue
  }

  /// A snapshot of the current value; change it with ``withLock(_:)``.
  ///
  /// Nonisolated; reading takes part in Observation.
  @inlinable public var wrappedValue: Value {
    // NB: `path!` after the check, not `if let path`: binding the path retained its state and
    // accessors on every read.
    guard path == nil else { return path!.read(object, path!.state, path!.offset) }
    let cell = unsafeDowncast(object, to: SharedCell<Value>.self)
    // NB: `cell.initial` in place, not `cell.current`: a target returned by value retained and
    // released the key's reference on every read.
    guard !cell.isRebound.load(ordering: .relaxed) else {
      return cell.valueElsewhere()
    }
    return cell.initial.referenceValue
  }

  /// The `Shared` itself, for `$value.withLock { ... }` and the other members.
  ///
  /// Assign another `Shared` to point the property at another key, `$user =
  /// Shared(.fileStorage(url))`: every copy of this `Shared` follows (its ``values`` stream
  /// too), while projections made from it before keep the value they were made from, as in
  /// swift-sharing. The old key's data is not touched.
  public var projectedValue: Shared<Value> {
    get { self }
    set { rebind(to: newValue.current) }
  }

  /// Points this `Shared` and its copies at `target`.
  mutating func rebind(to target: SharedTarget<Value>) {
    if let cell {
      cell.rebind(to: target)
    } else {
      // NB: a projection has no cell: the variable takes a cell of its own from now on.
      self = Shared(ownCellFor: target)
    }
  }

  /// Changes the value under its lock; the change is seen by every reference at once and saved in
  /// the background (never on this thread for file keys).
  ///
  /// Nonisolated.
  ///
  /// > Important: The lock is not reentrant. Do not use this `Shared`, or another `Shared` of
  /// > the same key or a projection of it, inside `body`: that is a programming error, and the
  /// > process stops with "Recursive call to lock Mutex" rather than deadlock silently.
  @inlinable
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    // NB: a projection's way and the key's reference's are the only uses of `body` inlined here;
    // a rebound `Shared` goes through a function that is not inlined. With a use per way, the
    // optimizer specialized the reference's `withLock` for the caller's closure and passed what
    // it captured by value: two more copies of an appended value per append.
    guard path == nil else { return try path!.change(object, body) }
    let cell = unsafeDowncast(object, to: SharedCell<Value>.self)
    guard !cell.isRebound.load(ordering: .relaxed) else {
      return try cell.withLockElsewhere(body)
    }
    return try cell.initial.referenceWithLock(body)
  }

  /// A shared reference to a part of the value, written through to this one and saved by its key:
  /// `$settings.theme`.
  ///
  /// Nonisolated.
  ///
  /// Observers of either are told of a change through either. Making one allocates nothing for
  /// a member of a key's value (a member of a member allocates a cell for the member it is
  /// made from).
  @inlinable
  public subscript<Member: Sendable>(
    dynamicMember keyPath: WritableKeyPath<Value, Member>
  ) -> Shared<Member> {
    // NB: one path whatever the root, so where the projection is used at once
    // (`$settings.opened.withLock { ... }`) the optimizer knows its accessor and calls it
    // directly: with a path per kind of root, the call went through the stored closure and the
    // key path was made, retained and released on every call (inline-projection).
    Shared<Member>(object: memberRoot, path: .member(ofCell: keyPath))
  }

  /// The root of a member projection: this `Shared`'s cell, while it holds a key's reference.
  @inlinable var memberRoot: AnyObject {
    if path == nil {
      let cell = unsafeDowncast(object, to: SharedCell<Value>.self)
      if !cell.isRebound.load(ordering: .relaxed) { return cell }
    }
    return projectionCell()
  }

  /// A cell whose only target is what this `Shared` reads now (a rebound cell's target, or a
  /// projection), as the root of projections made from it: they keep that target, as in
  /// swift-sharing, whatever this `Shared` is pointed at later.
  @usableFromInline func projectionCell() -> SharedCell<Value> { SharedCell(current) }

  /// Read-only access to a part of the value that cannot be written, such as a `let` or a get-only
  /// computed member: `$user.id`.
  ///
  /// Nonisolated.
  @inlinable
  public subscript<Member: Sendable>(
    dynamicMember keyPath: KeyPath<Value, Member>
  ) -> SharedReader<Member> {
    SharedReader(shared: readOnly(keyPath))
  }

  /// The read-only projection of the member at `keyPath`; see the writable one.
  @inlinable
  func readOnly<Member: Sendable>(_ keyPath: KeyPath<Value, Member>) -> Shared<Member> {
    // NB: one path whatever the root, as for a writable member: with one per kind of root, a
    // reader's projection read inline went through the stored closure and made, retained and
    // released the key path on every read.
    Shared<Member>(object: memberRoot, path: .readOnlyMember(ofCell: keyPath))
  }

  /// Points this `Shared` and every copy of it at `key`, in the same storage context, and reads it:
  /// for a view model that switches files (another account, another document).
  ///
  /// Nonisolated.
  ///
  /// ```swift
  /// try await $user.load(.fileStorage(otherAccountURL))
  /// ```
  ///
  /// The new key's value is read now; when nothing is stored, the value is this `Shared`'s own
  /// default (not the value of the key it leaves: one account's data never shows as
  /// another's). Other `Shared`s of the old key, and projections made before, are not affected,
  /// and the old key's data is not touched.
  ///
  /// - Throws: ``SharedLoadError`` when the new key's data exists but cannot be read (this
  ///   `Shared` then points at it, protected, as any key with unreadable data is);
  ///   ``SharedRebindingError`` for a projection (`$settings.theme`), whose copies cannot
  ///   follow: point the `Shared` it came from at the key instead, or assign `$theme =
  ///   Shared(key)`.
  public func load(_ key: some SharedKey<Value>) async throws {
    guard let cell else { throw SharedRebindingError(keyID: key.id) }
    let now = current
    let next = StorageContext.withValue(now.root.context) {
      Shared(key, default: now.fallback)
    }
    cell.rebind(to: next.current)
    if let loadError = next.loadError { throw loadError }
  }
}

extension Shared: Equatable where Value: Equatable {
  /// Two shared values are equal when their current values are.
  public static func == (lhs: Shared, rhs: Shared) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}

extension Shared {
  /// The key as the app writes it, with the part for a projection (`.inMemory("user")[dynamicMember:
  /// \User.name]`), or `value` for a `Shared(value:)`: for renderings that show the value beside
  /// it, such as `KeepsakeTesting`'s value dump.
  package var keyDescription: String { current.name }
}

extension Shared: CustomStringConvertible {
  /// The type and the key as an app writes them, as swift-sharing shows them:
  /// `Shared<Int>(.appStorage("count"))`, `Shared<Int>(value: 0)`,
  /// `Shared<String>(.inMemory("user")[dynamicMember: \User.name])`.
  public var description: String { "Shared<\(Value.self)>(\(current.description))" }
}

/// The key of a `Shared(value:)`: a unique identity, stored nowhere.
struct UnkeyedValue<Value: Sendable>: SharedKey {
  let id = SharedKeyID(kind: "value", name: UUID().uuidString)
  var saveTiming: SaveTiming { .never }
  func load(in context: StorageContext) throws -> Value? { nil }
  func save(_ value: Value, in context: StorageContext) throws {}
}
