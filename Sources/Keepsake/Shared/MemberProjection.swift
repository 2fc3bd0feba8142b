import Foundation

/// `$parent.member`.
@usableFromInline
final class MemberProjection<Root: Sendable, Value: Sendable>: SharedProjection<Value>,
  @unchecked Sendable
{
  let parent: Shared<Root>
  // NB: key paths are immutable; the standard library has not marked them Sendable yet.
  nonisolated(unsafe) let keyPath: WritableKeyPath<Root, Value>

  /// Made by `Shared`'s member subscript, inlined where `Root` is known, so changes run in
  /// specialized code: a stored property is reached at its offset, any other key path by
  /// subscript.
  @inlinable
  convenience init(parent: Shared<Root>, keyPath: WritableKeyPath<Root, Value>) {
    let reference = parent.reference
    let modify: Modify
    if let offset = MemoryLayout<Root>.offset(of: keyPath) {
      // NB: `offset(of:)` is non-nil only for a path of stored properties inside `Root`'s own
      // storage, so the member lives at that offset of the value the lock hands over.
      modify = { body in
        try reference.withLock { root in
          try withUnsafeMutablePointer(to: &root) { pointer in
            try body(
              &UnsafeMutableRawPointer(pointer).advanced(by: offset)
                .assumingMemoryBound(to: Value.self).pointee)
          }
        }
      }
    } else {
      let path = UncheckedKeyPath(keyPath)
      modify = { body in try reference.withLock { try body(&$0[keyPath: path.path]) } }
    }
    self.init(parent: parent, keyPath: keyPath, modify: modify)
  }

  @usableFromInline
  init(parent: Shared<Root>, keyPath: WritableKeyPath<Root, Value>, modify: @escaping Modify) {
    self.parent = parent
    self.keyPath = keyPath
    super.init(root: parent.root, specializedModify: modify)
  }

  override var value: Value { parent.wrappedValue[keyPath: keyPath] }

  override func peek() -> Value { parent.reference.peek()[keyPath: keyPath] }

  override func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try parent.withLock { try body(&$0[keyPath: keyPath]) }
  }

  override func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    let keyPath = UncheckedKeyPath(keyPath)
    return try await parent.update { try body(&$0[keyPath: keyPath.path]) }
  }
}

/// A key path carried into a `@Sendable` closure.
@usableFromInline
struct UncheckedKeyPath<Root, Value>: @unchecked Sendable {
  // NB: key paths are immutable values; only read.
  @usableFromInline let path: WritableKeyPath<Root, Value>
  @usableFromInline init(_ path: WritableKeyPath<Root, Value>) { self.path = path }
}
