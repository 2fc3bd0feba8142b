import Observation
import Synchronization

// Mutation: the fast paths of `withLock`, the observed and tracked path, and change listeners.

extension SharedReference {
  /// Mutates the value under its lock.
  ///
  /// NB: inlinable, so the lock and the body specialize in the caller's module (generic code
  /// of `Mutex<Value>` costs several times the lock itself). Two paths, neither of which takes
  /// a test store's tracker into account (that is ``withLockTrackedOrObserved(_:)``):
  /// - never read, so nothing can be observing it (Observation only tracks a value that was
  ///   read): a lock, the body and two relaxed atomic loads;
  /// - read, so maybe observed: the registrar's `willSet` before and `didSet` after, as
  ///   `@Observable` does, then the save and the change listeners, through one call
  ///   (``notifyingObservers(_:)``).
  @inlinable
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    guard !context.changeTracking.isActive.load(ordering: .relaxed) else {
      return try withLockTrackedOrObserved(body)
    }
    if hasBeenRead.load(ordering: .relaxed) {
      return try notifyingObservers {
        try storage.withLock { value in
          defer { if persists { generation &+= 1 } }
          return try body(&value)
        }
      }
    }
    var readMeanwhile = false
    defer {
      // A read that raced this mutation stored the flag before taking the lock, so it is seen
      // here, and observers are told after the fact.
      if readMeanwhile { notifyObserversAfterTheFact() }
      // NB: the armed check inline: once a save is armed, a mutation costs one relaxed load.
      if persists && !saveIsArmed.load(ordering: .relaxed) { didMutate() }
    }
    return try storage.withLock { value in
      defer {
        readMeanwhile = hasBeenRead.load(ordering: .relaxed)
        if persists { generation &+= 1 }
      }
      return try body(&value)
    }
  }

  /// ``withLock(_:)`` for `Shared`'s own `withLock` of a key's value: the same paths, with one
  /// use of `body`.
  ///
  /// NB: with one use of `body` the optimizer inlines this into the caller rather than making a
  /// copy of it specialized for the caller's closure, which took what the closure captured by
  /// value (an appended value copied 4 times where `@Observable` copies it once; see "Appends"
  /// in `Benchmarks/README.md`). Projections keep
  /// ``withLock(_:)``: inlined into their accessors, this one cost them twice as much.
  @inlinable
  func withLockOneUse<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    guard !context.changeTracking.isActive.load(ordering: .relaxed) else {
      return try withLockTrackedOrObserved(body)
    }
    let observed = hasBeenRead.load(ordering: .relaxed)
    if observed { observation.willSetValue(valueKeyPath) }
    var readMeanwhile = false
    defer {
      if observed {
        didChangeObserved()
      } else {
        if readMeanwhile { notifyObserversAfterTheFact() }
        if persists && !saveIsArmed.load(ordering: .relaxed) { didMutate() }
      }
    }
    return try storage.withLock { value in
      defer {
        if !observed { readMeanwhile = hasBeenRead.load(ordering: .relaxed) }
        if persists { generation &+= 1 }
      }
      return try body(&value)
    }
  }

  /// After an observed change: the registrar's `didSet`, the save, the change listeners.
  @usableFromInline
  func didChangeObserved() {
    observation.didSetValue(valueKeyPath)
    if persists { didMutate() }
    if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
  }

  /// Runs `mutation` between the registrar's `willSet` and `didSet` of the value, as
  /// `withMutation` does, then schedules the save and tells the change listeners, as
  /// ``withLockTrackedOrObserved(_:)`` does.
  ///
  /// NB: one call out of the caller's specialized code for everything after the lock.
  @usableFromInline
  func notifyingObservers<R>(_ mutation: () throws -> R) rethrows -> R {
    defer {
      if persists { didMutate() }
      if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
    }
    observation.willSetValue(valueKeyPath)
    defer { observation.didSetValue(valueKeyPath) }
    return try mutation()
  }

  /// The general path of ``withLock(_:)``, taken while a test store tracks changes: inside its
  /// assertion closure the expected snapshot changes, elsewhere the live value, observed or not.
  @usableFromInline
  func withLockTrackedOrObserved<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    // Inside a test's assertion closure the expected value (a snapshot) changes, never the
    // live one.
    if context.changeTracking.isActive.load(ordering: .relaxed),
      let tracker = SharedChangeTracker.expecting(in: context),
      let result = try tracker.mutateSnapshot(of: self, body)
    {
      return result
    }
    // NB: Observation only tracks a value that was read, so until the first read mutations
    // skip the registrar (see the fast path above).
    let notify = hasBeenRead.load(ordering: .relaxed)
    if notify { observation.willSetValue(valueKeyPath) }
    var readMeanwhile = false
    defer {
      if readMeanwhile { observation.willSetValue(valueKeyPath) }
      if notify || readMeanwhile { observation.didSetValue(valueKeyPath) }
      didMutate()
      if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
    }
    return try storage.withLock { value in
      defer {
        readMeanwhile = !notify && hasBeenRead.load(ordering: .relaxed)
        if persists { generation &+= 1 }
      }
      return try body(&value)
    }
  }

  @usableFromInline
  func notifyObserversAfterTheFact() {
    observation.willSetValue(valueKeyPath)
    observation.didSetValue(valueKeyPath)
    if hasChangeListeners.load(ordering: .relaxed) { tellChangeListeners() }
  }

  /// Calls `onChange` after every change of the value, on the thread that made it.
  ///
  /// NB: marks the value read, so mutations take the observed path, which tells listeners.
  func observeChanges(_ onChange: @escaping @Sendable () -> Void) -> StorageSubscription {
    hasBeenRead.store(true, ordering: .relaxed)
    let id = persistence.withLinks { links in
      defer { links.nextListener += 1 }
      links.listeners[links.nextListener] = onChange
      hasChangeListeners.store(true, ordering: .relaxed)
      return links.nextListener
    }
    return StorageSubscription { [weak self] in
      // NB: the listener is released after the lock: what it holds goes with it.
      let removed = self?.persistence.withLinks { links in
        defer {
          if links.listeners.isEmpty { self?.hasChangeListeners.store(false, ordering: .relaxed) }
        }
        return links.listeners.removeValue(forKey: id)
      }
      _ = removed
    }
  }

  @usableFromInline
  func tellChangeListeners() {
    let listeners = persistence.withLinks { Array($0.listeners.values) }
    for listener in listeners { listener() }
  }
}
