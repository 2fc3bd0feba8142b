import Foundation
import Synchronization

/// Where the reference of one key lives in a context.
///
/// A reference of a key that persists (a file, a preference) is held weakly: it lives while a
/// ``Shared``, a ``SharedReader`` or a pending save holds it, and then the context forgets it, so
/// thousands of keys used once cost nothing once dropped. A key that keeps its value only in
/// memory is held strongly: the reference *is* its storage, and it lives as long as the context
/// (for ``StorageContext/live``, the process), as in-memory keys do in swift-sharing.
final class ReferenceSlot: Sendable {
  /// The reference, weakly or strongly held.
  ///
  /// NB: a `Mutex` in the slot rather than an `NSLock` beside it: one allocation less on every
  /// key's creation (issue 25).
  private let held = Mutex<Held>(Held())
  /// Lookups in progress that may create a reference here; see `StorageContext.forget`.
  // NB: only read and written under the owning context's `references` lock.
  nonisolated(unsafe) var users = 0
  /// The identity of the reference the slot holds, so a dying reference only removes its own.
  let owner = Atomic<UInt>(0)

  private struct Held: @unchecked Sendable {
    // NB: unchecked: the held references are `SharedReference`s, which are Sendable.
    weak var weakly: AnyObject?
    var strongly: AnyObject?
  }

  /// The reference, if it is alive.
  var reference: AnyObject? {
    held.withLock { $0.strongly ?? $0.weakly }
  }

  /// Returns the live reference, or creates one with `make` under the slot's lock, so one key
  /// never gets two references however many threads ask at once; `made` tells which.
  ///
  /// NB: not generic: in generic code the optional of the reference's type and the tuple that
  /// returned it were each a run-time metadata lookup (measured).
  func reference(
    orMake make: () -> AnyObject, holdStrongly: Bool
  ) -> (reference: AnyObject, made: Bool) {
    held.withLock { held in
      if let existing = held.strongly ?? held.weakly { return (existing, false) }
      let made = make()
      if holdStrongly { held.strongly = made } else { held.weakly = made }
      owner.store(UInt(bitPattern: ObjectIdentifier(made).hashValue), ordering: .releasing)
      return (made, true)
    }
  }
}
