import Foundation
import Synchronization

// `$parent.member`: a projection through a key path, writable (a `Shared`) or read-only (a
// `SharedReader`).

extension SharedPath {
  /// The member at `keyPath` of a key's value, whose reference is the root.
  ///
  /// NB: inlinable, so the accessors are made where `Root` and `Value` are known: closures that
  /// capture nothing, specialized, that reach a stored member at its offset inside the value
  /// the root's lock hands over (`MemoryLayout.offset(of:)` is non-nil only for a path of
  /// stored properties inside `Root`'s own storage) and any other member by key path.
  @inlinable
  static func member<Root: Sendable>(_ keyPath: WritableKeyPath<Root, Value>) -> SharedPath {
    SharedPath(
      state: keyPath, offset: MemoryLayout<Root>.offset(of: keyPath) ?? -1,
      read: { root, state, offset in
        unsafeDowncast(root, to: SharedReference<Root>.self).readPart { value in
          offset >= 0
            ? UnsafeRawPointer(value).advanced(by: offset).assumingMemoryBound(to: Value.self)
              .pointee
            : value.pointee[keyPath: unsafeDowncast(state, to: KeyPath<Root, Value>.self)]
        }
      },
      modify: { root, state, offset, body in
        let reference = unsafeDowncast(root, to: SharedReference<Root>.self)
        if offset >= 0 {
          try reference.withLock { value in
            try withUnsafeMutablePointer(to: &value) { pointer in
              try body(
                &UnsafeMutableRawPointer(pointer).advanced(by: offset)
                  .assumingMemoryBound(to: Value.self).pointee)
            }
          }
        } else {
          let path = unsafeDowncast(state, to: WritableKeyPath<Root, Value>.self)
          try reference.withLock { try body(&$0[keyPath: path]) }
        }
        return nil
      })
  }

  /// The member at `keyPath`, read only, of a key's value.
  @inlinable
  static func readOnlyMember<Root: Sendable>(_ keyPath: KeyPath<Root, Value>) -> SharedPath {
    SharedPath(
      state: keyPath, offset: MemoryLayout<Root>.offset(of: keyPath) ?? -1,
      read: { root, state, offset in
        unsafeDowncast(root, to: SharedReference<Root>.self).readPart { value in
          offset >= 0
            ? UnsafeRawPointer(value).advanced(by: offset).assumingMemoryBound(to: Value.self)
              .pointee
            : value.pointee[keyPath: unsafeDowncast(state, to: KeyPath<Root, Value>.self)]
        }
      },
      modify: { _, _, _, _ in preconditionFailure("a read-only projection is never changed") })
  }

  /// The member at `keyPath` of a projection's value (`$settings.appearance.theme`).
  @inlinable
  static func member<Parent: Sendable>(
    _ keyPath: KeyPath<Parent, Value>, of parent: SharedTarget<Parent>
  ) -> SharedPath {
    SharedPath(
      state: ChainedMember(parent: parent, keyPath: keyPath), offset: -1,
      read: { _, state, _ in
        let part = unsafeDowncast(state, to: ChainedMember<Parent, Value>.self)
        return part.parent.value[keyPath: part.keyPath]
      },
      modify: { _, state, _, body in
        let part = unsafeDowncast(state, to: ChainedMember<Parent, Value>.self)
        guard let path = part.keyPath as? WritableKeyPath<Parent, Value> else {
          preconditionFailure("a read-only projection is never changed")
        }
        guard let parentPath = part.parent.path else {
          try part.parent.reference.withLock { try body(&$0[keyPath: path]) }
          return nil
        }
        return try parentPath.modify(part.parent.object, parentPath.state, parentPath.offset) {
          parentValue in
          try body(&parentValue[keyPath: path])
        }
      })
  }
}

/// A member of a projection: its parent and the key path from there.
@usableFromInline
final class ChainedMember<Parent: Sendable, Value: Sendable>: @unchecked Sendable {
  // NB: both immutable; key paths are not yet marked Sendable by the standard library.
  @usableFromInline let parent: SharedTarget<Parent>
  @usableFromInline let keyPath: KeyPath<Parent, Value>

  @usableFromInline init(parent: SharedTarget<Parent>, keyPath: KeyPath<Parent, Value>) {
    self.parent = parent
    self.keyPath = keyPath
  }

}

extension ChainedMember: DescribedPart {
  var partDescription: String {
    (parent.path.map { SharedDescription.path($0.state) } ?? "")
      + SharedDescription.path(keyPath)
  }
}

extension SharedTarget {
  /// The projection of the member at `keyPath`.
  @inlinable
  func appending<Member: Sendable>(_ keyPath: WritableKeyPath<Value, Member>) -> SharedTarget<
    Member
  > {
    guard path != nil else { return SharedTarget<Member>(object: object, path: .member(keyPath)) }
    return SharedTarget<Member>(object: object, path: .member(keyPath, of: self))
  }

  /// The read-only projection of the member at `keyPath`.
  @inlinable
  func appending<Member: Sendable>(readOnly keyPath: KeyPath<Value, Member>) -> SharedTarget<
    Member
  > {
    guard path != nil else {
      return SharedTarget<Member>(object: object, path: .readOnlyMember(keyPath))
    }
    return SharedTarget<Member>(object: object, path: .member(keyPath, of: self))
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
    registerAccess(self)
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
