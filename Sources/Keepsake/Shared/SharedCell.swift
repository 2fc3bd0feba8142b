import Synchronization

/// What copies of one ``Shared`` (or ``SharedReader``) share so that pointing one of them at
/// another key (`$user = Shared(...)`, `try await $user.load(key)`) is seen by every copy, as
/// swift-sharing users expect.
///
/// A `Shared` made from a key or a value is its cell (the cell holds the key's reference);
/// its copies share it. Until the first rebinding the cell costs an access one relaxed atomic
/// load (the flag) beside the reference's own work. After one, every access reads the cell's
/// new target under its lock.
///
/// NB: projections (`$settings.theme`) get no cell, so making one allocates nothing; a
/// projection assigned another `Shared` changes that variable only (its copies keep the part),
/// and ``Shared/load(_:)`` on one throws ``SharedRebindingError``.
@usableFromInline
final class SharedCell<Value: Sendable>: Sendable, SharedCellRoot {
  /// The target a rebinding chose.
  private final class TargetBox: Sendable {
    let target: SharedTarget<Value>
    init(_ target: SharedTarget<Value>) { self.target = target }
  }

  /// What the `Shared` was made with: until a rebinding, what it reads and changes.
  @usableFromInline let initial: SharedTarget<Value>
  /// Whether the cell's target is not `initial`'s key reference.
  ///
  /// Set once the cell was rebound, or from the start when `initial` is a projection; while it
  /// is not set, `initial` is a key's reference.
  @usableFromInline let isRebound = Atomic<Bool>(false)
  private let state = Mutex(SharedCellState())

  @usableFromInline init(_ initial: SharedTarget<Value>) {
    self.initial = initial
    // NB: a cell made for a projection (a reader of `$user.name`) starts as rebound, so that
    // "not rebound" means "`initial` is a key's reference" and the fast paths check one flag.
    if initial.path != nil {
      state.withLock { $0.target = TargetBox(initial) }
      isRebound.store(true, ordering: .releasing)
    }
  }

  /// What the copies of the `Shared` read and change now.
  @inlinable var current: SharedTarget<Value> {
    guard isRebound.load(ordering: .relaxed) else { return initial }
    return reboundTarget()
  }

  /// ``Shared/wrappedValue`` once the cell was rebound, or for a reader's cell made from a
  /// projection.
  @inlinable @inline(never)
  func valueElsewhere() -> Value { current.value }

  /// ``Shared/withLock(_:)`` once the cell was rebound, or for a reader's cell made from a
  /// projection.
  ///
  /// NB: not optimized, so the caller's optimizer cannot specialize it for the caller's closure:
  /// it did, taking what the closure captured as an owned argument, and the copies that needed
  /// were made before the branch, on the usual path too: three copies of an appended value per
  /// append where a `Mutex` makes one (see "Appends" in `Benchmarks/README.md`). A rebound
  /// `Shared` calls its target's `withLock` unspecialized.
  @usableFromInline @inline(never) @_optimize(none)
  func withLockElsewhere<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try current.withLock(body)
  }

  /// The target of the last rebinding: the slow path of every access once the cell was
  /// rebound.
  @usableFromInline func reboundTarget() -> SharedTarget<Value> {
    // NB: only this cell stores its target, always a `TargetBox`.
    state.withLock { $0.target }.map { unsafeDowncast($0, to: TargetBox.self).target } ?? initial
  }

  /// Points every copy at `target`, then tells the listeners (outside the lock: a listener
  /// reads the value through the cell).
  func rebind(to target: SharedTarget<Value>) {
    let listeners = state.withLock { state in
      state.target = TargetBox(target)
      return Array(state.listeners.values)
    }
    isRebound.store(true, ordering: .releasing)
    for listener in listeners { listener() }
  }

  /// Calls `onRebind` after every rebinding, on the rebinding thread, until the subscription is
  /// cancelled.
  func observeRebinding(_ onRebind: @escaping @Sendable () -> Void) -> StorageSubscription {
    let id = state.withLock { state in
      defer { state.nextListener += 1 }
      state.listeners[state.nextListener] = onRebind
      return state.nextListener
    }
    // NB: holds the cell (a weak reference would give it a side table, and every retain of it
    // the runtime's slow path); the cell holds no subscription, so nothing cycles.
    return StorageSubscription { [self] in
      _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }
  }
}

/// What a cell keeps under its lock.
///
/// NB: not generic (the target is boxed): nested in the cell, it was generic, and its metadata
/// and its lock's were looked up at run time on every key's creation.
private struct SharedCellState: Sendable {
  var target: (any AnyObject & Sendable)?
  var nextListener = 0
  var listeners: [Int: @Sendable () -> Void] = [:]
}

/// A cell seen without its value type: the root of a projection made from it.
protocol SharedCellRoot: AnyObject {
  /// The root of the cell's first target.
  var initialRoot: any SharedRoot { get }
  /// The path from the key's value to the value of the cell's first target, for descriptions.
  var initialPathDescription: String { get }
}

extension SharedCell {
  var initialRoot: any SharedRoot { initial.root }
  var initialPathDescription: String { initial.pathDescription }
}
