import Foundation
import Synchronization

// `$parent.member`: a projection through a key path, writable (a `Shared`) or read-only (a
// `SharedReader`).

extension SharedPath {
  /// The member at `keyPath` of the value of a cell, which is the root: a `Shared`'s own cell,
  /// whose first target is a key's reference, or a cell made for the projection (see
  /// `Shared.memberRoot`), whose only target is what the `Shared` it came from read then.
  ///
  /// NB: the cell rather than the reference, because retaining the cell is cheap: a reference is
  /// referred to weakly (by its context, by its subscriptions), so its count lives in a side
  /// table and each retain and release takes the runtime's slow path, a large part of a call
  /// such as `$settings.theme.withLock` (see "Costs the code avoids" in Benchmarks/README.md).
  /// The cell's first target never changes, so a projection made before a rebinding keeps its
  /// value, as it must.
  @inlinable
  static func member<Root: Sendable>(ofCell keyPath: WritableKeyPath<Root, Value>) -> SharedPath {
    // NB: the accessors of a stored member never touch the key path, so that where the
    // projection is used at once and dropped, nothing uses it but the path's own field and the
    // optimizer removes it, with its `swift_getKeyPath` and its release (much of the cost of
    // `$settings.opened.withLock { ... }` otherwise). A branch on the offset
    // inside one pair of accessors kept it: the optimizer folds the offset's `Optional` here,
    // not its value, so the key path's branch stayed.
    guard let offset = MemoryLayout<Root>.offset(of: keyPath) else {
      return computedMember(ofCell: keyPath)
    }
    return SharedPath(
      state: keyPath, offset: offset,
      read: { root, _, offset in readStoredMember(ofCell: root, Root.self, offset) },
      modify: { root, _, offset, body in
        let cell = unsafeDowncast(root, to: SharedCell<Root>.self)
        guard cell.initial.path == nil else {
          return try changeStoredMember(of: cell.initial, offset, body)
        }
        // NB: through the cell's `initial` in place: taking its reference out retained and
        // released it (the slow path this avoids).
        try cell.initial.changeStoredMember(Value.self, offset, body)
        return nil
      })
  }

  /// The member at `keyPath`, which has no offset (a computed member, or one inside a class),
  /// of the value of a cell; see ``member(ofCell:)``.
  @inlinable
  static func computedMember<Root: Sendable>(ofCell keyPath: WritableKeyPath<Root, Value>)
    -> SharedPath
  {
    SharedPath(
      state: keyPath, offset: -1,
      read: { root, state, offset in
        let cell = unsafeDowncast(root, to: SharedCell<Root>.self)
        guard cell.initial.path == nil else { return member(of: cell.initial, state, offset) }
        return cell.initial.readPart { value in member(of: value, state, offset) }
      },
      modify: { root, state, offset, body in
        let cell = unsafeDowncast(root, to: SharedCell<Root>.self)
        guard cell.initial.path == nil else {
          return try changeMember(of: cell.initial, state, offset, body)
        }
        try cell.initial.changeMember(Value.self, state, offset, body)
        return nil
      })
  }

  /// The stored member at `offset` of the value of `root`, a `Shared`'s cell: the accessor of
  /// writable and read-only stored members alike.
  @inlinable @inline(__always)
  static func readStoredMember<Root: Sendable>(
    ofCell root: AnyObject, _: Root.Type, _ offset: Int
  ) -> Value {
    let cell = unsafeDowncast(root, to: SharedCell<Root>.self)
    guard cell.initial.path == nil else { return storedMember(of: cell.initial, offset) }
    // NB: through the cell's `initial` in place: taking its reference out as an argument
    // copied the target and retained the reference (the slow path this avoids).
    return cell.initial.readPart { value in storedMember(of: value, offset) }
  }

  /// The stored member at `offset` of the value of `parent`, a projection.
  @inlinable @inline(never)
  static func storedMember<Root>(of parent: SharedTarget<Root>, _ offset: Int) -> Value {
    withUnsafePointer(to: parent.value) { storedMember(of: $0, offset) }
  }

  /// Runs `body` on the address of the stored member at `offset` of the value of `parent`, a
  /// projection; what is missing when its part is gone.
  @inlinable @inline(never)
  static func changeStoredMember<Root>(
    of parent: SharedTarget<Root>, _ offset: Int, _ body: Change
  ) throws -> PartGone? {
    try parent.modify { value in
      try withUnsafeMutablePointer(to: &value) { try body(.init($0).advanced(by: offset)) }
    }
  }

  /// The stored member at `offset` of `value`.
  @inlinable
  static func storedMember<Root>(of value: UnsafePointer<Root>, _ offset: Int) -> Value {
    UnsafeRawPointer(value).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee
  }

  /// The member at `offset` (or, without one, at the key path `state`) of the value of
  /// `parent`, a projection.
  @inlinable @inline(never)
  static func member<Root>(of parent: SharedTarget<Root>, _ state: AnyObject, _ offset: Int)
    -> Value
  {
    withUnsafePointer(to: parent.value) { member(of: $0, state, offset) }
  }

  /// Runs `body` on the address of the member at `offset` (or, without one, at the key path
  /// `state`) of the value of `parent`, a projection; what is missing when its part is gone.
  @inlinable @inline(never)
  static func changeMember<Root>(
    of parent: SharedTarget<Root>, _ state: AnyObject, _ offset: Int, _ body: Change
  ) throws -> PartGone? {
    try parent.modify { value in try change(&value, state, offset, body) }
  }

  /// The member at `keyPath`, read only, of the value of a cell; see ``member(ofCell:)``.
  @inlinable
  static func readOnlyMember<Root: Sendable>(ofCell keyPath: KeyPath<Root, Value>) -> SharedPath {
    // NB: as for a writable member, a stored member's accessor never touches the key path.
    guard let offset = MemoryLayout<Root>.offset(of: keyPath) else {
      return SharedPath(
        state: keyPath, offset: -1,
        read: { root, state, offset in
          let cell = unsafeDowncast(root, to: SharedCell<Root>.self)
          guard cell.initial.path == nil else { return member(of: cell.initial, state, offset) }
          return cell.initial.readPart { value in member(of: value, state, offset) }
        },
        modify: { _, _, _, _ in preconditionFailure("a read-only projection is never changed") })
    }
    return SharedPath(
      state: keyPath, offset: offset,
      read: { root, _, offset in readStoredMember(ofCell: root, Root.self, offset) },
      modify: { _, _, _, _ in preconditionFailure("a read-only projection is never changed") })
  }

  /// The member at `offset` (or, without one, at the key path `state`) of `value`.
  @inlinable
  static func member<Root>(of value: UnsafePointer<Root>, _ state: AnyObject, _ offset: Int)
    -> Value
  {
    offset >= 0
      ? UnsafeRawPointer(value).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee
      : value.pointee[keyPath: unsafeDowncast(state, to: KeyPath<Root, Value>.self)]
  }

  /// Runs `body` on the address of the member at `offset` (or, without one, at the key path
  /// `state`) of `value`.
  @inlinable @inline(__always)
  static func change<Root>(
    _ value: inout Root, _ state: AnyObject, _ offset: Int, _ body: Change
  ) rethrows {
    guard offset >= 0 else {
      let path = unsafeDowncast(state, to: WritableKeyPath<Root, Value>.self)
      try withUnsafeMutablePointer(to: &value[keyPath: path]) { try body(.init($0)) }
      return
    }
    try withUnsafeMutablePointer(to: &value) { try body(.init($0).advanced(by: offset)) }
  }
}

extension SharedTarget {
  /// Runs `body` on the address of the stored member at `offset` of the value of the key's
  /// reference, under its lock.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable
  func changeStoredMember<Member>(
    _ member: Member.Type, _ offset: Int, _ body: SharedPath<Member>.Change
  ) throws {
    try reference.withLock { value in
      try withUnsafeMutablePointer(to: &value) { try body(.init($0).advanced(by: offset)) }
    }
  }

  /// Runs `body` on the address of the member at `offset` (or, without one, at the key path
  /// `state`) of the value of the key's reference, under its lock.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable
  func changeMember<Member>(
    _ member: Member.Type, _ state: AnyObject, _ offset: Int, _ body: SharedPath<Member>.Change
  ) throws {
    if offset >= 0 {
      try reference.withLock { value in
        try withUnsafeMutablePointer(to: &value) { try body(.init($0).advanced(by: offset)) }
      }
    } else {
      let path = unsafeDowncast(state, to: WritableKeyPath<Value, Member>.self)
      try reference.withLock { value in
        try withUnsafeMutablePointer(to: &value[keyPath: path]) { try body(.init($0)) }
      }
    }
  }

  /// Reads a part of the value of the key's reference; see `SharedReference.readPart(_:)`.
  ///
  /// > Important: only when `path` is `nil`.
  @inlinable
  func readPart<Part: Sendable>(_ extract: (UnsafePointer<Value>) -> Part) -> Part {
    reference.readPart(extract)
  }
}

extension SharedReference {
  /// Reads a part of the value under its lock, as ``value`` reads all of it: the read takes part
  /// in Observation and, inside a test store's assertion closure, sees the expected snapshot.
  ///
  /// NB: mirrors `value` (`SharedReference.swift`), extracting under the lock so a member is
  /// copied rather than the whole value.
  @inlinable
  func readPart<Part: Sendable>(_ extract: (UnsafePointer<Value>) -> Part) -> Part {
    if !hasBeenRead.load(ordering: .relaxed) { hasBeenRead.store(true, ordering: .relaxed) }
    observation.accessValue(valueKeyPath)
    if context.changeTracking.isActive.load(ordering: .relaxed), let snapshot = trackedSnapshot() {
      return withUnsafePointer(to: snapshot) { extract($0) }
    }
    return storage.withLock { value in withUnsafePointer(to: &value) { extract($0) } }
  }
}

/// A key path carried into a `@Sendable` closure.
@usableFromInline
struct UncheckedKeyPath<Root, Value>: @unchecked Sendable {
  // NB: key paths are immutable values; only read.
  @usableFromInline let path: WritableKeyPath<Root, Value>
  @usableFromInline init(_ path: WritableKeyPath<Root, Value>) { self.path = path }
}
