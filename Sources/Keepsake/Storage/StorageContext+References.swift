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
    let slot = references.withLock { references in
      if let slot = references[key.id] { return slot }
      let slot = ReferenceSlot()
      references[key.id] = slot
      return slot
    }
    let (reference, created) = slot.reference.withLock { stored in
      if let existing = stored {
        guard let reference = existing as? SharedReference<Key.Value> else {
          preconditionFailure(
            "The key \(key.id) is already used with another value type in \(self). A key "
              + "names one stored value; give each type its own key.")
        }
        return (reference, false)
      }
      let reference = SharedReference(key: key, context: self, default: makeDefault)
      stored = reference
      return (reference, true)
    }
    if created {
      // NB: read under the context's lock, which also orders tracker installation: either the
      // installer's pass over the slots sees this reference, or this sees the tracker.
      let tracker = references.withLock { _ in changeTracking.tracker }
      tracker?.register(reference)
    }
    return reference
  }

  /// Every reference created so far in this context.
  func allReferences() -> [AnyObject] {
    let slots = references.withLock { Array($0.values) }
    return slots.compactMap { slot in slot.reference.withLock { $0 } }
  }

  /// Writes every pending change of every key in this context, blocking until written: for the
  /// `atexit` handler, which cannot wait asynchronously.
  func flushSynchronously() {
    for case let reference as any AnySharedReference in allReferences() {
      reference.flushSynchronously()
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
        try await reference.flushAndReport()
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    if let firstError { throw firstError }
  }
}

/// Where the reference of one key lives in a context, created once under its own lock.
final class ReferenceSlot: Sendable {
  let reference = Mutex<AnyObject?>(nil)
}
