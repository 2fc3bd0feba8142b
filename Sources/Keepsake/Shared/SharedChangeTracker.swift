import Synchronization

/// Remembers, per shared reference of one ``StorageContext``, the last value a test asserted,
/// so a test store can require every change of shared state to be asserted.
///
/// `KeepsakeTesting`'s `TestStore` installs one for the context of the running test. From then
/// on every reference of that context, including those created later and those mutated from a
/// detached task or another thread, is tracked: its *snapshot* starts as its value at the time
/// it became tracked and changes only when the test asserts.
///
/// While ``withExpectations(_:)`` runs, reads of a tracked ``Shared`` return its snapshot and
/// ``Shared/withLock(_:)`` mutates the snapshot instead of the live value, so an assertion
/// closure describes the expected value without touching the real one.
package final class SharedChangeTracker: Sendable {
  private struct Entry: Sendable {
    let reference: any SharedChangeTrackable
    var snapshot: any Sendable
  }

  /// One tracked reference, with a value (its live value or its snapshot, as asked).
  package struct TrackedValue: Sendable {
    /// The identity of the reference's key.
    package let keyID: SharedKeyID
    /// The value.
    package let value: any Sendable
  }

  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
  private let context: StorageContext

  @TaskLocal private static var expecting: SharedChangeTracker?

  private init(context: StorageContext) {
    self.context = context
  }

  /// Installs a tracker in `context`, replacing any other, and snapshots every reference that
  /// already exists there.
  package static func install(in context: StorageContext) -> SharedChangeTracker {
    let tracker = SharedChangeTracker(context: context)
    context.references.withLock { references in
      // NB: installing under the references lock orders this with reference creation, which
      // reads the tracker under the same lock once its reference exists: none is missed, and
      // registering twice is harmless.
      for slot in references.values {
        if let reference = slot.reference as? any SharedChangeTrackable {
          tracker.register(reference)
        }
      }
      context.changeTracking.install(tracker)
    }
    return tracker
  }

  /// Removes this tracker from its context, if it is still the installed one.
  package func uninstall() {
    context.references.withLock { _ in
      if context.changeTracking.tracker === self { context.changeTracking.install(nil) }
    }
  }

  func register(_ reference: any SharedChangeTrackable) {
    let snapshot = reference.untrackedValue
    entries.withLock { entries in
      if entries[ObjectIdentifier(reference)] == nil {
        entries[ObjectIdentifier(reference)] = Entry(reference: reference, snapshot: snapshot)
      }
    }
  }

  // MARK: - Expectations

  /// Runs `body` with reads and mutations of this tracker's references redirected to their
  /// snapshots.
  package func withExpectations<R>(_ body: () throws -> R) rethrows -> R {
    try Self.$expecting.withValue(self, operation: body)
  }

  /// The tracker whose expectations are being written in this task, if it tracks `context`.
  static func expecting(in context: StorageContext) -> SharedChangeTracker? {
    guard let tracker = expecting, tracker.context === context else { return nil }
    return tracker
  }

  /// The snapshot of `reference`, or `nil` when it is not tracked.
  func snapshot<Value: Sendable>(of reference: some SharedChangeTrackable) -> Value? {
    entries.withLock { $0[ObjectIdentifier(reference)]?.snapshot } as? Value
  }

  /// Mutates the snapshot of `reference` with `body`, or returns `nil` when it is not tracked.
  func mutateSnapshot<Value: Sendable, R>(
    of reference: some SharedChangeTrackable, _ body: (inout Value) throws -> R
  ) rethrows -> R? {
    let id = ObjectIdentifier(reference)
    guard var value = entries.withLock({ $0[id]?.snapshot }) as? Value else { return nil }
    // NB: `body` runs outside the lock: it may read or mutate other shared values.
    let result = try body(&value)
    entries.withLock { $0[id]?.snapshot = value }
    return result
  }

  // MARK: - Values

  /// The live value of every tracked reference.
  package func liveValues() -> [TrackedValue] {
    entries.withLock { Array($0.values) }.map {
      TrackedValue(keyID: $0.reference.trackedKeyID, value: $0.reference.untrackedValue)
    }
  }

  /// The snapshot of every tracked reference.
  package func snapshots() -> [TrackedValue] {
    entries.withLock { entries in
      entries.values.map { TrackedValue(keyID: $0.reference.trackedKeyID, value: $0.snapshot) }
    }
  }

  /// Replaces snapshots with `values` (matched by key identity); references not named keep
  /// theirs.
  package func setSnapshots(_ values: [TrackedValue]) {
    let byKey = Dictionary(values.map { ($0.keyID, $0.value) }) { first, _ in first }
    entries.withLock { entries in
      for (id, entry) in entries {
        if let value = byKey[entry.reference.trackedKeyID] { entries[id]?.snapshot = value }
      }
    }
  }
}
