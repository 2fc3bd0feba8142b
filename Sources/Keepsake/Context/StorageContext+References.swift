import Foundation
import Synchronization

extension StorageContext {
  /// The reference of `key` in this context, created (and loaded) on first use.
  ///
  /// The context's lock is held only to find the key's slot: the load and the default run
  /// under the slot's own lock, so a slow first load never stalls other keys, and a default
  /// may itself create other keys.
  ///
  /// NB: inlinable, so where the key's type is known (`Shared(.inMemory("count"), default: 0)`)
  /// whether it is an in-memory key, and the reference's type, are known at compile time: in
  /// the library's generic code the first was a cast (an existential's metadata, the key type's
  /// and the cast itself, a sizable part of an in-memory key's creation) and the second a
  /// run-time metadata lookup.
  @inlinable
  func reference<Key: SharedKey>(
    for key: Key, default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value> {
    guard let reference = reference(for: key, creating: true, default: makeDefault) else {
      preconditionFailure("a key's reference is made when it has none")
    }
    return reference
  }

  /// The reference of `key`, found, taken up from the value its last one parked, or (when
  /// `creating`) made; `makeDefault` is called only when creating.
  ///
  /// NB: inlinable, so where the key's type is known whether it is a file key is known at
  /// compile time too: the casts of every key to a file key, in the library's generic code,
  /// were a sizable part of a file key's creation.
  @inlinable
  func reference<Key: SharedKey>(
    for key: Key, creating: Bool, default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value>? {
    if let file = key as? FileStorageKey<Key.Value> {
      return reference(
        forFile: file, creating: creating, of: SharedReference<Key.Value>.self,
        default: makeDefault)
    }
    return reference(
      for: key, creating: creating, inMemory: Key.self == InMemoryKey<Key.Value>.self,
      of: SharedReference<Key.Value>.self, default: makeDefault)
  }

  /// The reference of `key`, which is not a file key, found, taken up from the value its last
  /// one parked, or (when `creating`) made, as a `type`.
  ///
  /// NB: `type` is the caller's, so a reference made here is allocated with metadata the
  /// caller's specialized code has at hand (see the inlinable ``reference(for:default:)``).
  @usableFromInline
  func reference<Key: SharedKey>(
    for key: Key, creating: Bool, inMemory: Bool, of type: SharedReference<Key.Value>.Type,
    default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value>? {
    let persists = key.saveTiming.persists
    // Another kind of shared storage: the one cast that finds it, for keys that save.
    if persists, !inMemory, let coordinated = key as? any CoordinatedKey<Key.Value> {
      return reference(
        forCoordinated: coordinated, creating: creating, of: type, default: makeDefault)
    }
    return reference(id: key.id, creating: creating, parks: !persists, of: type) {
      slot, parked in
      if let parked = parked.take() {
        return revived(parked, for: key, inMemory: inMemory, of: type, in: slot)
      }
      guard creating else { return nil }
      return type.init(
        key: key, shared: nil, context: self, default: makeDefault, inMemory: inMemory,
        parkingIn: persists ? nil : slot)
    }
  }

  /// The reference of file key `key`, found or (when `creating`) made, as a `type`.
  @usableFromInline
  func reference<Value>(
    forFile key: FileStorageKey<Value>, creating: Bool, of type: SharedReference<Value>.Type,
    default makeDefault: () -> Value
  ) -> SharedReference<Value>? {
    reference(forCoordinated: key, creating: creating, of: type, default: makeDefault)
  }

  /// The reference of coordinated key `key`, found or (when `creating`) made, as a `type`.
  ///
  /// The key is resolved first, so every spelling of its stored data (a file's links) finds one
  /// reference (see ``FileStorageKey/id``).
  private func reference<Value>(
    forCoordinated key: some CoordinatedKey<Value>, creating: Bool,
    of type: SharedReference<Value>.Type, default makeDefault: () -> Value
  ) -> SharedReference<Value>? {
    let key = key.resolved(in: self)
    return reference(id: key.id, creating: creating, parks: false, of: type) { _, _ in
      guard creating else { return nil }
      // NB: the reference's parts made here, so the key is put in an existential once.
      let parts = CoordinatedParts.owning(key)
      return type.init(
        key: parts.anyKey, shared: parts, context: self, default: makeDefault, inMemory: false)
    }
  }

  /// The reference in the slot of `id`, found or made by `make` (given the slot and the value a
  /// dead reference parked there, when the slot `parks`).
  ///
  /// The context's lock is held only to find the slot: `make` runs under the slot's own lock.
  private func reference<Value>(
    id: SharedKeyID, creating: Bool, parks: Bool, of type: SharedReference<Value>.Type,
    make: (ReferenceSlot, inout ParkedValue?) -> AnyObject?
  ) -> SharedReference<Value>? {
    let slot: ReferenceSlot? = references.withLock { references in
      // NB: through the inserting subscript's `inout` access, one hash of the key's ID where a
      // read and then a write made two.
      let slot = creating ? Self.slot(&references[id, default: ReferenceSlot()]) : references[id]
      slot?.users += 1
      return slot
    }
    guard let slot else { return nil }
    let found = slot.reference(orMake: { parked in make(slot, &parked) }, parks: parks)
    // NB: read under the context's lock, which also orders tracker installation: either the
    // installer's pass over the slots sees a made reference, or this sees the tracker.
    let tracker = references.withLock { _ in
      slot.users -= 1
      return found?.made == true ? changeTracking.tracker : nil
    }
    guard let found else { return nil }
    // NB: what this call made is of the key's value type; only a reference found may not be.
    let reference =
      found.made ? unsafeDowncast(found.reference, to: type) : existing(found.reference, id: id)
    tracker?.register(reference)
    return reference
  }

  /// A new reference of in-memory `key`, with the value and default its last one parked.
  @inline(never)
  private func revived<Key: SharedKey>(
    _ parked: ParkedValue, for key: Key, inMemory: Bool, of type: SharedReference<Key.Value>.Type,
    in slot: ReferenceSlot
  ) -> SharedReference<Key.Value> {
    guard let value = parked.value as? Key.Value, let fallback = parked.fallback as? Key.Value
    else { usedWithAnotherType(key.id) }
    return type.init(
      key: key, shared: nil, context: self, default: { fallback }, inMemory: inMemory,
      parkingIn: slot,
      revive: { $0 = value })
  }

  /// A reference found in the slot of `id`, as a reference of the value type asked for.
  @inline(never)
  private func existing<Value>(_ found: AnyObject, id: SharedKeyID) -> SharedReference<Value> {
    guard let reference = found as? SharedReference<Value> else { usedWithAnotherType(id) }
    return reference
  }

  /// Stops the program: the key `id` names a value of another type in this context, a
  /// programming error in the app.
  private func usedWithAnotherType(_ id: SharedKeyID) -> Never {
    preconditionFailure(
      "The key \(id) is already used with another value type in \(self). A key names one "
        + "stored value; give each type its own key.")
  }

  /// The slot an inserting subscript hands over.
  private static func slot(_ slot: inout ReferenceSlot) -> ReferenceSlot { slot }

  /// The live reference of `key`, if it has one (for an in-memory key, taken up from the value
  /// its last one parked); never creates one from a default.
  func existingReference<Key: SharedKey>(for key: Key) -> SharedReference<Key.Value>? {
    reference(for: key, creating: false) {
      preconditionFailure("a default is only made for a reference being created")
    }
  }

  /// Forgets the slot of a reference that is going away, unless a lookup is using the slot (it
  /// may be creating the key's next reference there) or the slot already holds another one.
  func forget(_ id: SharedKeyID, reference: ObjectIdentifier) {
    references.withLock { references in
      guard let slot = references[id], slot.users == 0,
        slot.owner.load(ordering: .acquiring) == UInt(bitPattern: reference)
      else { return }
      references[id] = nil
    }
  }

  /// Every live reference in this context.
  func allReferences() -> [AnyObject] {
    let slots = references.withLock { Array($0.values) }
    return slots.compactMap(\.reference)
  }

  /// How many keys have a live reference in this context: for tests of reference lifetime.
  package var liveReferenceCount: Int { allReferences().count }

  /// How many keys this context keeps a slot for, live or not yet forgotten.
  package var referenceSlotCount: Int { references.withLock { $0.count } }

  /// Writes every pending change of every key in this context, blocking until written, except
  /// inside open transactions (never half written): for the exit and termination flushes, which
  /// cannot wait asynchronously.
  func flushAtExit(waitingForTransactions grace: Duration? = nil) {
    let deadline = grace.map { ContinuousClock.now + $0 }
    for case let reference as any AnySharedReference in allReferences() {
      reference.flushAtExit(waitingForTransactionsUntil: deadline)
    }
  }

  /// Writes every pending change of every key in this context and waits for the writes.
  ///
  /// Call it before a process exits (a command-line tool's last step), so the latest values are
  /// on disk.
  ///
  /// - Throws: The first save error, after every key was flushed.
  public func flush() async throws {
    var firstError: (any Error)?
    for case let reference as any AnySharedReference in allReferences() {
      do {
        try await reference.flush()
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    if let firstError { throw firstError }
  }
}
