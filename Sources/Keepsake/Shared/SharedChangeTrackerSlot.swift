import Synchronization

/// The place in a ``StorageContext`` where a ``SharedChangeTracker`` is installed, with a flag
/// checked on every read and mutation of a shared value.
///
/// NB: the tracker is the idea (what a test asserted of each reference); the slot is only how a
/// context holds it cheaply. A context always has a slot (`StorageContext.changeTracking`),
/// usually empty.
///
/// The hot path of ``Shared`` reads only ``isActive`` (one relaxed atomic load) when no test
/// store is tracking changes; the tracker itself is behind a lock and looked up only when the
/// flag is set.
@usableFromInline
final class SharedChangeTrackerSlot: Sendable {
  /// Set while a tracker is installed.
  @usableFromInline let isActive = Atomic<Bool>(false)
  private let installed = Mutex<SharedChangeTracker?>(nil)

  init() {}

  /// The installed tracker, if any.
  var tracker: SharedChangeTracker? {
    guard isActive.load(ordering: .acquiring) else { return nil }
    return installed.withLock { $0 }
  }

  /// Installs `tracker`, or removes the installed one with `nil`; called by
  /// ``SharedChangeTracker`` under the context's references lock.
  func install(_ tracker: SharedChangeTracker?) {
    installed.withLock { $0 = tracker }
    isActive.store(tracker != nil, ordering: .releasing)
  }
}

/// What a reference offers a tracker, whatever its value type.
protocol SharedChangeTrackable: AnyObject, Sendable {
  /// The identity of the reference's key.
  var trackedKeyID: SharedKeyID { get }
  /// The key as an app writes it.
  var trackedKeyDescription: String { get }
  /// The live value, read without registering an observation or consulting a tracker.
  var untrackedValue: any Sendable { get }
}
