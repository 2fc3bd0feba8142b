import Foundation
import Synchronization

/// Where the reference of one key lives in a context.
///
/// A reference of a key that persists (a file, a preference) is held weakly: it lives while a
/// ``Shared``, a ``SharedReader`` or a pending save holds it, and then the context forgets it, so
/// thousands of keys used once cost nothing once dropped. A key that keeps its value only in
/// memory is held strongly: the reference *is* its storage, and it lives as long as the context
/// (for ``StorageContext/live``, the process), as in-memory keys do in swift-sharing.
final class ReferenceSlot: @unchecked Sendable {
  // NB: `weakReference` and `strongReference` are only touched with `lock` held; `users` only
  // under the owning context's `references` lock; `owner` is atomic.
  private let lock = NSLock()
  private weak var weakReference: AnyObject?
  private var strongReference: AnyObject?
  /// Lookups in progress that may create a reference here; see `StorageContext.forget`.
  var users = 0
  /// The identity of the reference the slot holds, so a dying reference only removes its own.
  let owner = Atomic<UInt>(0)

  /// The reference, if it is alive.
  var reference: AnyObject? {
    lock.withLock { strongReference ?? weakReference }
  }

  /// Returns the live reference, or creates one with `make` under the slot's lock, so one key
  /// never gets two references however many threads ask at once.
  func reference<R: AnyObject>(
    orMake make: () -> R, holdStrongly: (R) -> Bool
  ) -> (existing: AnyObject?, made: R?) {
    lock.withLock {
      if let existing = strongReference ?? weakReference { return (existing, nil) }
      let made = make()
      if holdStrongly(made) { strongReference = made } else { weakReference = made }
      owner.store(UInt(bitPattern: ObjectIdentifier(made).hashValue), ordering: .releasing)
      return (nil, made)
    }
  }
}
