import Foundation
import Synchronization

/// Where the reference of one key lives in a context.
///
/// The slot holds its reference weakly: the reference lives while a ``Shared``, a
/// ``SharedReader`` or a pending save holds it, so thousands of keys used once cost nothing once
/// dropped. A key that persists (a file, a preference) keeps its value in its storage, and the
/// context then forgets the slot. A key that keeps its value only in memory keeps it here: its
/// dying reference parks the value in the slot, and the key's next reference takes it up, so the
/// value lives as long as the context (for ``StorageContext/live``, the process), as in-memory
/// keys do in swift-sharing.
///
/// NB: not held strongly: a reference holds its context, so a context that held its in-memory
/// references was never freed, and every test's context kept its values for the life of the
/// process, one test or benchmark run after another.
final class ReferenceSlot: Sendable {
  /// The reference, and a dead reference's value.
  ///
  /// NB: a `Mutex` in the slot rather than an `NSLock` beside it: one allocation less on every
  /// key's creation.
  private let held = Mutex<Held>(Held())
  /// Lookups in progress that may create a reference here; see `StorageContext.forget`.
  // NB: only read and written under the owning context's `references` lock, so exempt from the
  // run-time exclusivity check of a class's variable.
  @exclusivity(unchecked) nonisolated(unsafe) var users = 0
  /// The identity of the reference the slot holds, so a dying reference only removes its own;
  /// for a slot that parks, 0 once the dying reference has parked its value.
  ///
  /// NB: the identity's bits, not its `hashValue`, which ran a hasher on every creation and
  /// every park.
  let owner = Atomic<UInt>(0)

  private struct Held: @unchecked Sendable {
    // NB: unchecked: the reference is a `SharedReference`, Sendable.
    weak var reference: AnyObject?
    var parked: ParkedValue?
    /// Whether the reference last made here parks its value when it dies.
    ///
    /// NB: recorded, not taken from the caller: a key whose save timing changed between two
    /// lookups must not wait for a park that its dead reference was never going to make.
    var madeParking = false
  }

  /// The reference, if it is alive.
  var reference: AnyObject? {
    held.withLock { $0.reference }
  }

  /// Returns the live reference, or creates one with `make` under the slot's lock, so one key
  /// never gets two references however many threads ask at once; `made` tells which, and `nil`
  /// means `make` made none.
  ///
  /// `make` is given the value a dead reference parked, if any (only in a slot that `parks`),
  /// and takes it when it uses it. A reference that is dying and has not parked its value yet is
  /// waited for, so its value is never lost to a new reference made from the default.
  ///
  /// NB: not generic: in generic code the optional of the reference's type and the tuple that
  /// returned it were each a run-time metadata lookup. The parked value is lent, not copied, and
  /// the outcome is told through local variables rather than an enum with a reference in it:
  /// the copies and their destruction were a cost on every creation.
  func reference(
    orMake make: (_ parked: inout ParkedValue?) -> AnyObject?, parks: Bool
  ) -> (reference: AnyObject, made: Bool)? {
    while true {
      var made = false
      var dying = false
      let reference: AnyObject? = held.withLock { held in
        if let existing = held.reference { return existing }
        // A reference whose last holder let go, whose deinit is parking its value now.
        if held.madeParking && owner.load(ordering: .acquiring) != 0 {
          dying = true
          return nil
        }
        guard let new = make(&held.parked) else { return nil }
        held.reference = new
        held.madeParking = parks
        owner.store(UInt(bitPattern: ObjectIdentifier(new)), ordering: .releasing)
        made = true
        return new
      }
      if let reference { return (reference, made) }
      guard dying else { return nil }
      sched_yield()
    }
  }

  /// Keeps the value of `reference`, which is dying, for the key's next reference.
  func park(_ value: ParkedValue, from reference: ObjectIdentifier) {
    held.withLock { held in
      guard owner.load(ordering: .acquiring) == UInt(bitPattern: reference) else {
        return
      }
      held.parked = value
      owner.store(0, ordering: .releasing)
    }
  }
}

/// The value of an in-memory key whose reference died, and its default, kept by its slot.
///
/// NB: not generic, so parking allocates nothing for a small value and looks up no metadata.
struct ParkedValue: Sendable {
  let value: any Sendable
  let fallback: any Sendable
}
