import Synchronization

/// A reference's persistence machine under its lock, and what runs and serializes the work it
/// decides.
///
/// One lock (the machine's) guards the machine, the bodies of `update`s waiting for their jobs,
/// the streams of conflict reports and the reference's links (its subscription to outside
/// changes and its change listeners): each is touched briefly, and never while calling out.
/// The other lock, `inlineSaves`, is held across a key's own save (on the mutating thread, or on
/// the lane); only keys that store through their own `save` make it.
final class PersistenceParts: Sendable {
  private struct Guarded: ~Copyable {
    var machine: PersistenceMachine
    var updates = PendingUpdates()
    var conflicts = ConflictListeners()
    var links = ReferenceLinks()
  }

  private let guarded: Mutex<Guarded>
  /// The lane of a key that persists, made with the reference.
  private let madeLane: (any PersistenceLane)?
  /// The lane of a key that does not persist, made when first used: most never use one, and
  /// making it was a twentieth of such a key's creation (see "In-memory keys" in `Benchmarks/README.md`).
  private let laterLane = AtomicLazyReference<LaneBox>()
  private let madeInlineSaves = AtomicLazyReference<InlineSaves>()

  /// Serializes saves made on the mutating thread, so the latest value is the one stored: the
  /// generation last saved, under its lock, made by the first such save.
  var inlineSaves: InlineSaves {
    if let made = madeInlineSaves.load() { return made }
    return madeInlineSaves.storeIfNil(InlineSaves())
  }

  init(_ machine: PersistenceMachine, lane: (any PersistenceLane)?) {
    self.guarded = Mutex(Guarded(machine: machine))
    self.madeLane = lane
  }

  /// Runs `body` on the machine under its lock.
  func withLock<R: Sendable>(_ body: (inout PersistenceMachine) -> R) -> R {
    guarded.withLock { body(&$0.machine) }
  }

  /// Runs `body` on the reference's links under the lock.
  func withLinks<R: Sendable>(_ body: (inout ReferenceLinks) -> R) -> R {
    guarded.withLock { body(&$0.links) }
  }

  /// Takes `event` into the machine and tells every conflict stream of the reports it makes,
  /// under one hold of the lock, so every stream has the reports in the order the machine made
  /// them, whichever thread made each.
  func handle(
    _ event: PersistenceMachine.Event, now: Duration,
    reporting report: (PersistenceMachine.LastConflict) -> SharedConflict
  ) -> [PersistenceMachine.Effect] {
    guarded.withLock { guarded in
      let effects = guarded.machine.handle(event, now: now)
      for case .report(let conflict) in effects { guarded.conflicts.tell(report(conflict)) }
      return effects
    }
  }

  /// Keeps the body of an `update` for its job; returns its token.
  func keepUpdate(_ body: any Sendable) -> UInt64 {
    guarded.withLock { guarded in
      defer { guarded.updates.next += 1 }
      guarded.updates.bodies[guarded.updates.next] = body
      return guarded.updates.next
    }
  }

  /// The body of the `update` of `token`, if it is still kept.
  func update(_ token: UInt64) -> (any Sendable)? {
    guarded.withLock { $0.updates.bodies[token] }
  }

  /// Forgets the body of the `update` of `token`.
  func forgetUpdate(_ token: UInt64) {
    // NB: released after the lock: what the body holds goes with it.
    let body = guarded.withLock { $0.updates.bodies.removeValue(forKey: token) }
    _ = body
  }

  /// A stream of every conflict reported from now on (``Shared/conflicts``); it stops
  /// listening when its iteration ends or it is dropped.
  func conflicts() -> AsyncStream<SharedConflict> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: SharedConflict.self, bufferingPolicy: .unbounded)
    let id = guarded.withLock { $0.conflicts.add(continuation) }
    continuation.onTermination = { [weak self] _ in
      let gone = self?.guarded.withLock { $0.conflicts.remove(id) }
      _ = gone
    }
    return stream
  }

  /// Tells every conflict stream of `conflict`: for tests of the streams.
  func tell(_ conflict: SharedConflict) {
    guarded.withLock { $0.conflicts.tell(conflict) }
  }

  /// How many conflict streams are open.
  var conflictStreamCount: Int { guarded.withLock { $0.conflicts.count } }

  /// The lane saves, reloads and flushes run on, made by `make` if there is none yet.
  func lane(making make: () -> any PersistenceLane) -> any PersistenceLane {
    if let madeLane { return madeLane }
    if let made = laterLane.load() { return made.lane }
    // NB: two threads may both make one; the second is dropped unused.
    return laterLane.storeIfNil(LaneBox(make())).lane
  }
}

/// The generation a key's last save on the mutating thread stored, under its lock.
final class InlineSaves: Sendable {
  let lastSaved = Mutex<UInt64>(0)
}

/// A lane made when first used, as an atomic reference holds it.
private final class LaneBox: Sendable {
  let lane: any PersistenceLane
  init(_ lane: any PersistenceLane) { self.lane = lane }
}
