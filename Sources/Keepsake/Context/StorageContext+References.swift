import Foundation
import Synchronization

extension StorageContext {
  /// The reference of `key` in this context, created (and loaded) on first use.
  ///
  /// The context's lock is held only to find the key's slot: the load and the default run
  /// under the slot's own lock, so a slow first load never stalls other keys, and a default
  /// may itself create other keys.
  func reference<Key: SharedKey>(
    for key: Key, default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value> {
    let key = resolved(key)
    let slot = references.withLock { references in
      let slot = references[key.id] ?? ReferenceSlot()
      references[key.id] = slot
      slot.users += 1
      return slot
    }
    defer { references.withLock { _ in slot.users -= 1 } }
    let found = slot.reference(
      orMake: { SharedReference(key: key, context: self, default: makeDefault) },
      holdStrongly: { !$0.persists })
    if let made = found.made {
      // NB: read under the context's lock, which also orders tracker installation: either the
      // installer's pass over the slots sees this reference, or this sees the tracker.
      let tracker = references.withLock { _ in changeTracking.tracker }
      tracker?.register(made)
      return made
    }
    guard let reference = found.existing as? SharedReference<Key.Value> else {
      preconditionFailure(
        "The key \(key.id) is already used with another value type in \(self). A key "
          + "names one stored value; give each type its own key.")
    }
    return reference
  }

  /// The live reference of `key`, if it has one; never creates it.
  func existingReference<Key: SharedKey>(for key: Key) -> SharedReference<Key.Value>? {
    let id = resolved(key).id
    let slot = references.withLock { $0[id] }
    return slot?.reference as? SharedReference<Key.Value>
  }

  /// `key` as this context's file system sees it: a file key with its file's links resolved,
  /// so every spelling of one file finds one reference (see ``FileStorageKey/id``).
  private func resolved<Key: SharedKey>(_ key: Key) -> Key {
    // NB: a cast to the concrete type, not to a protocol: a few nanoseconds for every other
    // key, against about 45 for a protocol conformance check (measured).
    guard let file = key as? FileStorageKey<Key.Value> else { return key }
    return file.resolved(in: self) as? Key ?? key
  }

  /// Forgets the slot of a reference that is going away, unless a lookup is using the slot (it
  /// may be creating the key's next reference there) or the slot already holds another one.
  func forget(_ id: SharedKeyID, reference: ObjectIdentifier) {
    references.withLock { references in
      guard let slot = references[id], slot.users == 0,
        slot.owner.load(ordering: .acquiring) == UInt(bitPattern: reference.hashValue)
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
