import Foundation

// NB: longer than this project's files usually are: the transition function is the one place
// that changes the machine's state, which its `private(set)` properties allow only in this file.

/// The persistence of one shared reference as one state machine: every decision about when to
/// read, save, merge, keep a copy or report is made by ``handle(_:now:)``, and nowhere else.
///
/// A reference that persists (a file, preferences, a custom key that saves) owns one machine,
/// under one lock. The machine does no I/O and holds no value: it maps a state and an event to
/// the next state and the effects to perform, which `SharedReference+Persistence.swift` performs
/// (reading the file, writing it, merging under the value's lock) and whose results come back
/// as events. So a test, or the `simulation` campaign of `keepsake-stress`, can drive it through
/// any interleaving of mutations, timers, outside writers and kills. The Data safety article's
/// "The persistence of a reference" states, for each state, what the file and the app may see.
///
/// ## States
/// The machine's state is stored, never derived, in three groups that the transition function
/// alone changes:
/// - the **work** (``Work``), one case at a time: nothing, a job on the writer lane, or a
///   transaction holding the file's lock (with its end running, once it does);
/// - the **stored data**: readable or not (``Stored``), and whether the key's first load is still
///   under way (`isLoading`);
/// - the **wait for a save**: whether the coalescing timer is armed (`saveTimerArmed`), and where
///   the wait for a removed file is (``ReplacementWait``).
///
/// What arrives while a job or a transaction runs waits in the ``Backlog``. The named states the
/// Data safety article describes are how the three read together (``phase``), in this order:
/// - **in a transaction**: a transaction holds the file's lock. Nothing it changes is written
///   before it ends.
/// - **saving**: a job runs on the reference's writer lane: a save, a reload, a transaction's
///   start or end.
/// - **loading**: the key's first read runs in the background; the value is the default.
/// - **protected**: the stored data could not be read. Nothing is written over it; changes stay
///   pending and ``SharedSaveError/protected(_:)`` says so (data-safety rule "A file Keepsake
///   cannot read is never overwritten").
/// - **pending**: a change waits for its coalesced save (the timer is armed), or for a removed
///   file to be put back.
/// - **clean**: the value in memory is what this reference last read or wrote.
///
/// The three are kept apart because they change apart: the timer is armed while a job runs, a
/// reload runs while the data is unreadable, and one stored case for each combination would
/// repeat every transition that does not care about the others.
///
/// ## Invariants
/// 1. A pending change is never dropped. A reload that finds the stored data changed while a
///    change is pending saves through the merge (base: what this reference last read or
///    wrote), also when the data was unreadable before; a change made while it was unreadable
///    stays pending and reported until it can be saved.
/// 2. No intermediate value of a transaction is written: coalesced saves, reloads, flushes and
///    the exit flush wait for its end, and a transaction that throws restores the value it
///    began with. A killed process leaves the file as it was before the transaction.
/// 3. Unreadable data is never written over: a save that finds it unreadable stops before
///    writing, and the reference becomes protected.
/// 4. One job at a time: what arrives while a job runs (a mutation, the timer, an outside
///    change, a request) is recorded and served when the job ends, in order.
struct PersistenceMachine: Sendable {
  // MARK: - What the machine works with

  /// Whether the stored data can be read.
  enum Stored: Sendable {
    case readable
    case unreadable(SharedLoadError)
  }

  /// Why a job runs.
  enum Purpose: Sendable {
    /// Write a pending change: the coalescing timer, ``Shared/flush()`` or the exit flush
    /// (`force` false); ``Shared/save()`` (`force` true: write even if nothing changed).
    case save(force: Bool)
    /// Another process (or reference) changed the stored data.
    case reload
    /// ``Shared/load()``: read the stored data again, whatever this reference knows of it.
    case load
    /// A transaction takes the file's lock and refreshes the value.
    case begin
    /// A transaction ends: what it changed is written, then the lock is released.
    case commit
    /// A transaction's body threw: the value it began with is restored; nothing is written.
    case rollback
    /// A transaction with a synchronous body (`update`), run whole under the lock; the body is
    /// the reference's, under this token.
    case update(UInt64)
    /// ``Shared/replaceUnreadableData()``: the unreadable data is set aside, then ours is saved.
    case replace
    /// Preferences: make the writes queued in the store durable.
    case makeDurable
  }

  /// One step of a job, performed on the writer lane; its result comes back as an event.
  enum Step: Sendable, Equatable {
    /// Whether a change is pending. → ``Event/checked(pending:)``
    case checkPending
    /// Take the file's cross-process lock. → `locked`, `lockBusy`, `lockFailed`
    case lock
    /// Compare the stored data with what this reference last read or wrote, reading it if it
    /// changed (`again`: as if nothing were known of it). → `found`, `unreadable`
    case read(again: Bool)
    /// Under the value's lock, apply ``decide(_:pending:canMerge:adoptOnly:)``'s decision, then
    /// the body of an `update` (its token). → `reconciled`
    ///
    /// `waitsForRemoved`: a file found removed, with nothing of ours pending, is not taken for
    /// deleted yet (see ``Reconciled/awaitsReplacement``).
    case reconcile(
      adoptOnly: Bool, force: Bool, body: UInt64?, waitsForRemoved: Bool = false)
    /// Keep the other side of a conflict as a copy beside the file. → `copied`, `writeFailed`
    case keepCopy
    /// Write the reconciled value durably. → `written`, `writeFailed`
    case write
    /// Release the file's lock. → `unlocked`
    case unlock
    /// Put back the value a transaction began with. → `restored`
    case restore
    /// Set unreadable data aside in a quarantine copy. → `quarantined`, `quarantineFailed`
    case quarantine
    /// Hand the latest value to a custom key or to preferences. → `written`, `writeFailed`
    case saveToKey
    /// Make queued preference writes durable. → `written`, `writeFailed`
    case makeDurable
    /// Keep the pending change durably beside the file (or, its folder gone, in the state
    /// folder) when a save of it was refused. → `keptUnsaved`
    case keepUnsaved
    /// Ask a custom key for its stored value (`again`: ``SharedKey/load(in:)``, else
    /// ``SharedKey/reload(in:)``). → `found`, `unreadable`
    case readKey(again: Bool)
  }

  /// Something that happened: from the app, from the world, or the result of a step.
  enum Event: Sendable {
    /// The value changed, and no save that will see it is armed.
    case mutated
    /// A timer armed by ``Effect/arm(_:after:)`` fired.
    case timerFired(Timer)
    /// The stored data may have been changed by someone else.
    case outsideChange
    /// The app asks for a job; `waiter` is told how it ended. `insideTransaction` when asked
    /// from inside a transaction of this reference.
    case request(Purpose, Waiter, insideTransaction: Bool)
    /// The process is exiting (normally, or on a termination signal): write what is pending now.
    case exiting
    /// A save made on the mutating thread ended (inline keys and preferences), with its error.
    case savedInline(SharedSaveError?)
    /// A reader key says it is loading again, or has done (its `load()`, a subscriber's
    /// `yieldLoading`).
    case loading(Bool)
    /// The key resolved a conflict on its own (a sync engine's copy of its file, merged or kept):
    /// the app is told, as of another process's save.
    case conflictReported(
      SharedConflict.Resolution, otherDevice: SyncedVersion?, byAnotherProcess: Bool = false,
      copy: URL? = nil)
    /// The result of a step, see ``Step``.
    case checked(pending: Bool)
    case locked
    /// The lock is held by someone else; ask again later (a scheduler that does not wait).
    /// `givingUp` is the error once the wait reached the lock timeout.
    case lockBusy(givingUp: SharedSaveError)
    case lockFailed(SharedSaveError)
    /// The stored data is readable; `changed` when it is not what this reference knew.
    case found(changed: Bool)
    case unreadable(SharedLoadError)
    /// What the reconciliation did: whether a conflict copy and a write are due, how a conflict
    /// was resolved, and, for a reload, whether a pending change now needs a save through the
    /// merge.
    case reconciled(Reconciled)
    /// Theirs is kept at `url`; `pruned` are older copies removed to keep their number bounded.
    case copied(URL, pruned: [URL])
    case written
    /// Another program changed the file while it was being written: nothing was written over
    /// its change; the job reads it again and merges. `givingUp` is the error once it happened
    /// ``PersistenceMachine/raceLimit`` times.
    case writeRaced(givingUp: SharedSaveError)
    case writeFailed(SharedSaveError)
    case unlocked
    /// The refused change is kept (or could not be, which its save error already says).
    case keptUnsaved
    case restored
    case quarantined
    case quarantineFailed(any Error)
  }

  /// What a reconciliation did (see ``Step/reconcile(adoptOnly:force:)``).
  struct Reconciled: Sendable {
    var copy = false
    var write = false
    var conflict: SharedConflict.Resolution?
    /// A reload found a change of ours pending: it is saved next, through the merge.
    var needsSave = false
    /// The file was removed while a change of ours was pending, and the write would create it
    /// again.
    var rewritesRemoved = false
    /// The file was removed, with nothing of ours pending: a program replacing it (Syncthing
    /// removes, then renames in) puts it back in a moment, so the removal is taken in only once
    /// the grace is over, and the value stays as it was meanwhile.
    var awaitsReplacement = false
    /// Theirs changed fields ours changed too: nothing is taken in until theirs is kept as a
    /// conflict copy, and the reconciliation then runs again.
    var mergesOnceCopied = false
  }

  /// What the machine asks for.
  enum Effect: Sendable {
    /// Perform `step` of the running job on the writer lane.
    case run(Step)
    /// Fire ``Event/timerFired(_:)`` after `delay`.
    case arm(Timer, after: Duration)
    /// Whether mutations may skip telling the machine: a save that will snapshot the value is
    /// armed (or a transaction is open, whose end writes everything).
    case saveIsArmed(Bool)
    /// Save on the mutating thread, now (inline keys and preferences).
    case saveInline
    /// Tell observers that these parts of the status changed.
    case publish(StatusChange)
    /// Tell whoever listens for every conflict (``Shared/conflicts``) of this one, now in
    /// ``lastConflict``: carried here, since another report may replace it before this effect runs.
    case report(LastConflict)
    /// Keep the value as it is now, to restore if the transaction that opens now throws.
    case keepSnapshot
    /// Tell waiting callers how their job ended.
    case complete([Waiter], Outcome)
  }

  /// The timers a reference can have armed.
  enum Timer: Sendable, Equatable {
    /// The coalescing interval after a change.
    case save
    /// A retry of a lock that was busy.
    case lockRetry
    /// The end of the wait for another program to put a removed file back (see
    /// ``PersistenceMachine/replacementGrace``).
    case replacementGrace
  }

  /// Parts of the status that changed, for observers.
  struct StatusChange: OptionSet, Sendable {
    let rawValue: UInt8
    static let loadError = StatusChange(rawValue: 1)
    static let saveError = StatusChange(rawValue: 2)
    static let lastConflict = StatusChange(rawValue: 4)
    static let isLoading = StatusChange(rawValue: 8)
  }

  /// How a job ended.
  typealias Outcome = Result<Void, any Error>

  /// A caller waiting for a job.
  struct Waiter: Sendable {
    let resume: @Sendable (Outcome) -> Void
  }

  /// The job running now.
  struct Job: Sendable {
    var purpose: Purpose
    var step: Step
    var waiters: [Waiter]
    /// Whether this job took the file's lock (a commit or rollback uses the transaction's).
    var holdsLock = false
    /// The first thing that went wrong; the job still releases its lock before it ends.
    var failure: (any Error)?
    var conflict: SharedConflict.Resolution?
    /// Older conflict copies removed to make room for this job's.
    var prunedCopies: [URL] = []
    /// Where theirs was kept when a merge kept ours for fields changed on both sides.
    var keptCopy: URL?
    /// The last copy this job kept (either kind): on disk whatever happens next, so the app
    /// hears of it even when the job then fails (a race, then a file it cannot read).
    var madeCopy: (resolution: SharedConflict.Resolution, url: URL)?
    /// When the job started waiting for a busy lock.
    var lockWaitStarted: Duration?
    /// Whether the job started as a reload or a load (it ends a background first load).
    var reads = false
    /// Whether the job saves in the background (the coalescing timer, a save that follows
    /// another job), so it may wait for a removed file to be put back; nobody waits on it.
    var patient = false
    /// How many times another program changed the file while this job was writing it.
    var races = 0
    /// Whether the copy being kept is what a merge waits for (``Reconciled/mergesOnceCopied``).
    var reconcilesAfterCopy = false
  }

  // MARK: - State

  let storage: Storage
  /// The coalescing interval, for keys that save in the background.
  let interval: Duration?
  /// How long a save waits for a busy lock before it fails.
  let lockTimeout: Duration
  /// How long to wait before asking for a busy lock again.
  static let lockRetryDelay: Duration = .milliseconds(5)
  /// How long a removed file may stay away before a pending change writes it again.
  ///
  /// Programs replace a file by removing it and then putting a new one in its place: Syncthing
  /// removes the old file and renames its temporary file in (microseconds apart), a script runs
  /// `rm` then `cp` (a process's start apart: milliseconds, up to about a second on a loaded
  /// machine). Writing at once would put this change under, or over, the file on its way in;
  /// waiting lets it arrive, and the change merges with it. Two seconds cover both with a wide
  /// margin, and delay only a change whose file was removed.
  static let replacementGrace: Duration = .seconds(2)
  /// How many times a job writes again after another program changed the file during its
  /// write, before it reports the save as failed (its change stays pending).
  static let raceLimit = 8

  private(set) var stored: Stored = .readable
  private(set) var isLoading = false
  private(set) var saveError: SharedSaveError?
  /// The last conflict: how it was resolved, the older conflict copies its copy made room for,
  /// and the other device's version for a conflict between devices.
  struct LastConflict: Sendable {
    var resolution: SharedConflict.Resolution
    var pruned: [URL]
    var otherDevice: SyncedVersion? = nil
    var copy: URL? = nil
    var keptByAnotherProcess = false
  }

  private(set) var lastConflict: LastConflict?
  /// What the machine is doing: nothing, a job, or a transaction.
  private(set) var work = Work.idle
  /// What waits for the running job (or the open transaction) to end.
  private(set) var backlog = Backlog()
  private(set) var saveTimerArmed = false
  /// Where the wait for a removed file to be put back is (see ``replacementGrace``).
  private(set) var replacement = ReplacementWait.none
  /// Whether the process is exiting: a save then never waits for a removed file to come back.
  private(set) var exiting = false

  /// What the machine is doing, one at a time.
  enum Work: Sendable {
    /// No job runs and no transaction is open.
    case idle
    /// A job runs on the writer lane (the state **saving**).
    case running(Job)
    /// A transaction holds the file's lock between its start and its end; `ending` is its
    /// commit or rollback once that runs. Nothing else runs inside a transaction (invariant 2).
    case inTransaction(ending: Job?)
  }

  /// Work that waits for the running job (or the open transaction) to end, served in this
  /// order when it does.
  struct Backlog: Sendable {
    /// Requests, in the order they came; inside a transaction only its end is served.
    var requests: [(Purpose, Waiter)] = []
    /// The stored data changed meanwhile: read it again.
    var reload = false
    /// A change waits for a save.
    var save = false
    /// Preferences: queued writes are to be made durable.
    var makeDurable = false
  }

  /// The wait for a removed file to be put back.
  enum ReplacementWait: Sendable, Equatable {
    case none
    /// A save found the file removed with a change pending: background saves wait.
    case waiting
    /// The grace is over: the next save writes the file, only if its name is still empty.
    case over
  }
  init(
    storage: Storage, interval: Duration?, lockTimeout: Duration, loadError: SharedLoadError?,
    isLoading: Bool
  ) {
    self.storage = storage
    self.interval = interval
    self.lockTimeout = lockTimeout
    if let loadError { stored = .unreadable(loadError) }
    self.isLoading = isLoading
  }

  /// The load error that protects the stored data, if any.
  var loadError: SharedLoadError? {
    if case .unreadable(let error) = stored { return error }
    return nil
  }

  /// The named state the machine is in (see the type's documentation).
  enum Phase: Sendable, Equatable {
    case loading, clean, pending, saving, protected, inTransaction
  }

  /// The job running now, if any: alone, or a transaction's end.
  var job: Job? {
    switch work {
    case .idle: nil
    case .running(let job): job
    case .inTransaction(let ending): ending
    }
  }

  /// Whether a transaction is open, or starting or ending, or waits to start.
  var transactionUnderWay: Bool {
    if case .inTransaction = work { return true }
    if let job, isTransactional(job.purpose) { return true }
    return backlog.requests.contains { isTransactional($0.0) }
  }

  private func isTransactional(_ purpose: Purpose) -> Bool {
    switch purpose {
    case .begin, .commit, .rollback, .update: true
    default: false
    }
  }

  /// The named state, read from the three stored values: the work first, then the stored data,
  /// then the wait for a save.
  var phase: Phase {
    switch work {
    case .inTransaction: return .inTransaction
    case .running: return .saving
    case .idle: break
    }
    if isLoading { return .loading }
    if loadError != nil { return .protected }
    if saveTimerArmed || replacement == .waiting { return .pending }
    return .clean
  }

  // MARK: - The transition function

  /// Takes `event` in, at time `now` on the scheduler's clock, and returns what to do.
  mutating func handle(_ event: Event, now: Duration) -> [Effect] {
    switch event {
    case .mutated:
      return mutated()
    case .timerFired(.save):
      saveTimerArmed = false
      // The end of the grace saves what is pending, or the first job after it, when a write
      // (a file put back and merged) ends the wait before the grace does.
      if replacement == .waiting {
        backlog.save = true
        return []
      }
      guard case .idle = work else {
        // NB: invariant 2: inside a transaction the commit writes; never an intermediate value.
        backlog.save = true
        return []
      }
      return start(.save(force: false), waiters: [], patient: true)
    case .timerFired(.replacementGrace):
      guard replacement == .waiting else { return [] }
      replacement = .over
      guard case .idle = work else {
        backlog.save = true
        backlog.reload = true
        return []
      }
      // The grace is over: the file is read again. Still gone, a change pending writes it
      // (never over one that arrives now), and with nothing pending the removal is taken in.
      // A change whose save the grace held back is saved after that read, whatever it found.
      backlog.save = true
      return start(.reload, waiters: [])
    case .timerFired(.lockRetry):
      guard let job, job.step == .lock else { return [] }
      return [.run(.lock)]
    case .outsideChange:
      guard case .idle = work else {
        backlog.reload = true
        return []
      }
      return start(.reload, waiters: [])
    case .request(let purpose, let waiter, let insideTransaction):
      return request(purpose, waiter, insideTransaction: insideTransaction)
    case .exiting:
      // Nothing waits for a removed file from now on: the process has no time left to wait.
      exiting = true
      // NB: invariant 2: a transaction still open at exit is abandoned, not half written.
      guard case .idle = work else { return [] }
      return start(.save(force: false), waiters: [])
    case .savedInline(let error):
      return savedInline(error)
    case .loading(let loading):
      guard isLoading != loading else { return [] }
      isLoading = loading
      return [.publish(.isLoading)]
    case .conflictReported(let resolution, let otherDevice, let byAnotherProcess, let copy):
      return report(
        LastConflict(
          resolution: resolution, pruned: [], otherDevice: otherDevice, copy: copy,
          keptByAnotherProcess: byAnotherProcess))
    default:
      return advance(with: event, now: now)
    }
  }

  private mutating func mutated() -> [Effect] {
    if let loadError {
      // Invariant 1: the change stays pending, and the app hears why it is not saved. A file's
      // change is kept durably by the save the timer starts (see `Step.keepUnsaved`).
      var effects = setSaveError(.protected(loadError))
      if storage.isShared, !saveTimerArmed, let interval {
        saveTimerArmed = true
        effects += [.saveIsArmed(true), .arm(.save, after: interval)]
      }
      return effects
    }
    if storage.savesOnMutation { return [.saveInline] }
    if case .inTransaction = work { return [] }
    guard !saveTimerArmed, let interval else { return [] }
    saveTimerArmed = true
    return [.saveIsArmed(true), .arm(.save, after: interval)]
  }

  /// A change was saved on the mutating thread (inline keys and preferences).
  private mutating func savedInline(_ error: SharedSaveError?) -> [Effect] {
    if let error { return setSaveError(error) }
    guard storage.makesDurableLater else { return setSaveError(nil) }
    // NB: a preferences write is acknowledged only once it is durable (rule "An acknowledged
    // save is on disk"): its error is cleared once the store made it durable.
    if job == nil { return start(.makeDurable, waiters: []) }
    backlog.makeDurable = true
    return []
  }

  private mutating func request(
    _ purpose: Purpose, _ waiter: Waiter, insideTransaction: Bool
  ) -> [Effect] {
    switch purpose {
    case .save, .load, .makeDurable:
      if insideTransaction {
        // NB: invariant 2: inside a transaction a save or a load is part of it; its end writes.
        return [.complete([waiter], .success(()))]
      }
    case .commit, .rollback:
      guard case .inTransaction(ending: nil) = work else {
        backlog.requests.append((purpose, waiter))
        return []
      }
      return start(purpose, waiters: [waiter])
    default:
      break
    }
    guard case .idle = work else {
      backlog.requests.append((purpose, waiter))
      return []
    }
    return start(purpose, waiters: [waiter])
  }

  /// Starts a job at its first step; a `patient` save may wait for a removed file to be put
  /// back.
  private mutating func start(
    _ purpose: Purpose, waiters: [Waiter], patient: Bool = false
  ) -> [Effect] {
    var effects: [Effect] = []
    var holdsLock = false
    let first: Step
    switch (storage.isShared, purpose) {
    case (_, .save(force: false)):
      first = .checkPending
      effects.append(.saveIsArmed(false))
    case (true, .save(force: true)), (true, .begin), (true, .update):
      if let loadError { return protectedFailure(loadError, waiters: waiters, purpose: purpose) }
      first = .lock
      effects.append(.saveIsArmed(false))
    case (true, .reload):
      first = .read(again: false)
    case (true, .load):
      first = .read(again: true)
    case (true, .commit):
      // The transaction's lock is this job's to release.
      holdsLock = true
      first = .read(again: false)
    case (true, .rollback):
      holdsLock = true
      first = .restore
    case (_, .replace):
      first = .quarantine
    case (false, .save(force: true)):
      if let loadError { return protectedFailure(loadError, waiters: waiters) }
      first = .saveToKey
    case (false, .reload):
      first = .readKey(again: false)
    case (false, .load):
      first = .readKey(again: true)
    case (_, .makeDurable) where storage.makesDurableLater:
      first = .makeDurable
    case (_, .begin), (_, .commit), (_, .rollback), (_, .update), (_, .makeDurable):
      // NB: only shared storage has transactions; the reference runs other keys' bodies
      // directly.
      return [.complete(waiters, .success(()))]
    }
    var job = Job(purpose: purpose, step: first, waiters: waiters, holdsLock: holdsLock)
    // NB: a save someone waits for (`save()`, `flush()`, the exit) ends the wait for a removed
    // file as its end would: an acknowledged save is on disk when it returns.
    job.patient = patient && waiters.isEmpty && replacement != .over && !exiting
    switch purpose {
    case .reload, .load: job.reads = true
    default: break
    }
    run(job)
    effects.append(.run(first))
    return effects
  }

  private mutating func protectedFailure(
    _ loadError: SharedLoadError, waiters: [Waiter], purpose: Purpose? = nil
  ) -> [Effect] {
    let error = SharedSaveError.protected(loadError)
    if storage.isShared, let purpose {
      // The refused change is kept durably before the caller hears of the refusal.
      var job = Job(purpose: purpose, step: .keepUnsaved, waiters: waiters)
      job.failure = error
      run(job)
      return setSaveError(error) + [.run(.keepUnsaved)]
    }
    return setSaveError(error) + [.complete(waiters, .failure(error))] + serveNext()
  }

  /// Where a job goes after a step's result.
  private enum Move {
    /// The result does not belong to the running step (a retry timer that fired after the
    /// lock was taken, say): nothing changes.
    case ignore
    /// The job waits (for a busy lock's retry).
    case wait
    /// The job performs `step` next.
    case step(Step)
    /// The job is done: it releases a lock it took, then finishes.
    case end
  }

  /// Moves the running job on after its step's result.
  private mutating func advance(with event: Event, now: Duration) -> [Effect] {
    guard var job else { return [] }
    var effects: [Effect] = []
    switch transition(&job, on: event, now: now, effects: &effects) {
    case .ignore:
      return []
    case .wait:
      run(job)
      return effects
    case .step(let step):
      job.step = step
      run(job)
      return effects + [.run(step)]
    case .end:
      if job.holdsLock && !keepsLock(job) {
        job.step = .unlock
        run(job)
        return effects + [.run(.unlock)]
      }
      return effects + finish(job)
    }
  }

  /// The table of a job's steps: the step's result decides the next step.
  private mutating func transition(
    _ job: inout Job, on event: Event, now: Duration, effects: inout [Effect]
  ) -> Move {
    switch (job.step, event) {
    case (.checkPending, .checked(let pending)):
      let force: Bool
      if case .save(let forced) = job.purpose { force = forced } else { force = false }
      guard pending || force else {
        return storage.makesDurableLater ? .step(.makeDurable) : .end
      }
      if let loadError {
        let error = SharedSaveError.protected(loadError)
        effects += setSaveError(error)
        job.failure = error
        if storage.isShared { return .step(.keepUnsaved) }
        return .end
      }
      if storage.isShared { return .step(.lock) }
      return .step(.saveToKey)

    case (.lock, .locked):
      job.holdsLock = true
      job.lockWaitStarted = nil
      return .step(.read(again: false))
    case (.lock, .lockBusy(let givingUp)):
      let started = job.lockWaitStarted ?? now
      job.lockWaitStarted = started
      if now - started >= lockTimeout {
        effects += setSaveError(givingUp)
        job.failure = givingUp
        return .end
      }
      effects.append(.arm(.lockRetry, after: Self.lockRetryDelay))
      return .wait
    case (.lock, .lockFailed(let error)):
      effects += setSaveError(error)
      job.failure = error
      return error.isFolderRemoved ? .step(.keepUnsaved) : .end

    case (.read, .found(let changed)), (.readKey, .found(let changed)):
      if loadError != nil, changed || isLoad(job.purpose) {
        // The stored data is readable again (a newer app migrated it, someone restored it).
        // Invariant 1: a change made while it was unreadable armed no save; one follows now.
        stored = .readable
        backlog.save = true
        effects.append(.publish(.loadError))
        if case .protected = saveError { effects += setSaveError(nil) }
      }
      return .step(reconciliation(of: job.purpose))
    case (.read, .unreadable(let error)), (.readKey, .unreadable(let error)):
      // Invariant 3: stop before writing; the data is protected from now on. A transaction's
      // change stays in memory, pending and reported.
      stored = .unreadable(error)
      effects.append(.publish(.loadError))
      switch job.purpose {
      case .reload:
        break
      case .load:
        job.failure = error
      default:
        let saveError = SharedSaveError.protected(error)
        effects += setSaveError(saveError)
        job.failure = saveError
        if storage.isShared { return .step(.keepUnsaved) }
      }
      return .end

    case (.reconcile, .reconciled(let result)):
      if let conflict = result.conflict { job.conflict = conflict }
      if result.needsSave {
        // Invariant 1: a reload met a pending change; it goes on as a save, under the lock,
        // through the merge, so whoever waits for the load sees the change kept.
        job.purpose = .save(force: false)
        // NB: whoever waits for a load waits for the read, not for this save: a removed file
        // is still waited for.
        job.patient = (job.waiters.isEmpty || job.reads) && replacement != .over && !exiting
        if storage.isShared { return .step(.lock) }
        return .step(.saveToKey)
      }
      if result.awaitsReplacement {
        if replacement == .none {
          replacement = .waiting
          effects.append(.arm(.replacementGrace, after: Self.replacementGrace))
        }
        return .end
      }
      if result.rewritesRemoved && job.patient {
        // The file was removed with our change pending: wait for a program putting it back.
        job.conflict = nil
        if replacement == .none {
          replacement = .waiting
          effects.append(.arm(.replacementGrace, after: Self.replacementGrace))
        }
        return .end
      }
      if result.copy {
        job.reconcilesAfterCopy = result.mergesOnceCopied
        return .step(.keepCopy)
      }
      if result.write { return .step(.write) }
      if case .reload = job.purpose, case .writeFailed? = saveError, storage.makesDurableLater {
        // A store that writes later (preferences) may have written the change since its
        // write failed (it tries again when its file changes): asking it again clears the
        // error, or tries once more.
        return .step(.makeDurable)
      }
      return .end

    case (.keepCopy, .copied(let url, let pruned)):
      if case .merged(let overlapping)? = job.conflict, !overlapping.isEmpty {
        // Merged field by field: the fields changed on both sides kept ours, theirs is here.
        job.keptCopy = url
      } else {
        job.conflict = .keptBoth(copy: url)
      }
      job.madeCopy = job.conflict.map { ($0, url) }
      job.prunedCopies = pruned
      if job.reconcilesAfterCopy {
        // Theirs is safe on disk: the merge that waited for it takes it in now.
        job.reconcilesAfterCopy = false
        return .step(reconciliation(of: job.purpose))
      }
      return .step(.write)
    case (.keepCopy, .writeFailed(let error)), (.write, .writeFailed(let error)),
      (.saveToKey, .writeFailed(let error)), (.makeDurable, .writeFailed(let error)):
      effects += setSaveError(error)
      job.failure = error
      return error.isFolderRemoved ? .step(.keepUnsaved) : .end
    case (.keepUnsaved, .keptUnsaved):
      return .end

    case (.write, .writeRaced(let givingUp)):
      // Nothing was written over the other program's change: it is read, merged, and ours
      // written again, under the same lock. An `update`'s body already ran: it is not run twice.
      job.races += 1
      guard job.races < Self.raceLimit else {
        effects += setSaveError(givingUp)
        job.failure = givingUp
        return .end
      }
      if case .update = job.purpose { job.purpose = .save(force: false) }
      return .step(.read(again: false))
    case (.write, .written):
      replacement = .none
      effects += setSaveError(nil)
      if let conflict = job.conflict {
        effects += report(
          LastConflict(resolution: conflict, pruned: job.prunedCopies, copy: job.keptCopy))
      }
      return .end
    case (.saveToKey, .written):
      if storage.makesDurableLater { return .step(.makeDurable) }
      effects += setSaveError(nil)
      return .end
    case (.makeDurable, .written):
      effects += setSaveError(nil)
      return .end

    case (.unlock, .unlocked):
      job.holdsLock = false
      return .end

    case (.restore, .restored):
      return .end

    case (.quarantine, .quarantined):
      stored = .readable
      effects.append(.publish(.loadError))
      if storage.isShared { return .step(.lock) }
      return .step(.saveToKey)
    case (.quarantine, .quarantineFailed(let error)):
      job.failure = error
      return .end

    default:
      return .ignore
    }
  }

  /// Makes `conflict` the last one, for observers and for whoever listens for every one.
  private mutating func report(_ conflict: LastConflict) -> [Effect] {
    lastConflict = conflict
    return [.publish(.lastConflict), .report(conflict)]
  }

  /// The reconciliation of what a job's read found, for its purpose.
  private func reconciliation(of purpose: Purpose) -> Step {
    // NB: a file found removed with nothing of ours pending is left to the grace by every read
    // and every save, which then writes nothing (files only: a removed preference is not being
    // replaced). Taken in now, the key would know "no file", and the next change's save would
    // write into the name a program putting the file back (remove, then rename) has emptied for
    // a moment.
    let waits = storage.isShared && replacement != .over && !exiting
    switch purpose {
    case .reload, .load:
      return .reconcile(adoptOnly: true, force: false, body: nil, waitsForRemoved: waits)
    case .save(let force):
      return .reconcile(adoptOnly: false, force: force, body: nil, waitsForRemoved: waits)
    case .replace:
      return .reconcile(adoptOnly: false, force: true, body: nil)
    case .update(let token):
      return .reconcile(adoptOnly: false, force: false, body: token)
    default:
      return .reconcile(adoptOnly: false, force: false, body: nil)
    }
  }

  private func isSave(_ purpose: Purpose) -> Bool {
    if case .save = purpose { return true }
    return false
  }

  private func isLoad(_ purpose: Purpose) -> Bool {
    if case .load = purpose { return true }
    return false
  }

  /// Whether the job ends with the file's lock still held: a transaction's start.
  private func keepsLock(_ job: Job) -> Bool {
    if case .begin = job.purpose { return job.failure == nil }
    return false
  }

  /// Makes `job` the running one: alone, or as the end of the open transaction.
  private mutating func run(_ job: Job) {
    if case .inTransaction = work {
      work = .inTransaction(ending: job)
    } else {
      work = .running(job)
    }
  }

  /// Ends `job`: tells its waiters, opens or closes a transaction, and serves what waited.
  private mutating func finish(_ job: Job) -> [Effect] {
    var effects: [Effect] = []
    let outcome: Outcome = job.failure.map { .failure($0) } ?? .success(())
    switch job.purpose {
    case .begin where job.failure == nil:
      work = .inTransaction(ending: nil)
      effects.append(.keepSnapshot)
      effects.append(.saveIsArmed(true))
    case .commit:
      work = .idle
      effects.append(.saveIsArmed(false))
    case .rollback:
      work = .idle
      // NB: a change made while the transaction started (after its snapshot) is restored
      // unsaved; a save follows, and finds it (invariant 1).
      backlog.save = true
      effects.append(.saveIsArmed(false))
    default:
      break
    }
    if job.failure != nil, let made = job.madeCopy {
      // The save failed after it kept theirs beside the file: the copy is there all the same.
      let copy: URL? = if case .keptBoth = made.resolution { nil } else { made.url }
      effects += report(
        LastConflict(resolution: made.resolution, pruned: job.prunedCopies, copy: copy))
    }
    if replacement == .over, !job.patient, job.reads || isSave(job.purpose) {
      // The read or the save that follows the grace ran, whatever it found.
      replacement = .none
    }
    if job.reads, isLoading {
      // The first load has come (or failed), merged with any change made meanwhile.
      isLoading = false
      effects.append(.publish(.isLoading))
    }
    if case .running = work { work = .idle }
    if case .inTransaction(.some) = work { work = .inTransaction(ending: nil) }
    effects.append(.complete(job.waiters, outcome))
    return effects + serveNext()
  }

  /// Starts what waited for the job that just ended.
  private mutating func serveNext() -> [Effect] {
    switch work {
    case .running, .inTransaction(.some):
      return []
    case .inTransaction(nil):
      let requests = backlog.requests
      guard let index = requests.firstIndex(where: { isTransactionEnd($0.0) }) else { return [] }
      let (purpose, waiter) = backlog.requests.remove(at: index)
      return start(purpose, waiters: [waiter])
    case .idle:
      break
    }
    if !backlog.requests.isEmpty {
      let (purpose, waiter) = backlog.requests.removeFirst()
      return start(purpose, waiters: [waiter])
    }
    if backlog.reload {
      backlog.reload = false
      return start(.reload, waiters: [])
    }
    if backlog.save {
      backlog.save = false
      return start(.save(force: false), waiters: [], patient: true)
    }
    if backlog.makeDurable {
      backlog.makeDurable = false
      return start(.makeDurable, waiters: [])
    }
    return []
  }

  private func isTransactionEnd(_ purpose: Purpose) -> Bool {
    switch purpose {
    case .commit, .rollback: true
    default: false
    }
  }

  private mutating func setSaveError(_ error: SharedSaveError?) -> [Effect] {
    if saveError == nil && error == nil { return [] }
    saveError = error
    return [.publish(.saveError)]
  }
}

// MARK: - Reconciling the value with the stored data

extension PersistenceMachine {
  /// How the stored data differs from what the reference last read or wrote.
  enum ChangeKind: Sendable, Equatable {
    case unchanged
    case deleted
    case replaced
  }

  /// What a reconciliation does with the value in memory and the stored data.
  enum Decision: Sendable, Equatable {
    /// The stored data is what the reference knew: keep the value (and write it if pending).
    case nothing
    /// Take the stored value (the default, for deleted data): nothing of ours is pending.
    case adopt
    /// A reload met a pending change: save next, under the lock, through the merge.
    case saveNext
    /// The stored data was deleted while a change of ours was pending: write ours again, and
    /// report it (delete it again to drop it).
    case rewrite
    /// Merge ours and theirs three ways, base: what the reference last read or wrote.
    case merge
    /// Ours is written; theirs is first kept as a conflict copy, and the app is told.
    case keepBoth
  }

  /// The decision table of a reconciliation (invariant 1: no row drops a pending change).
  ///
  /// - Parameters:
  ///   - change: How the stored data differs from what the reference last read or wrote.
  ///   - pending: Whether a change of ours waits to be saved.
  ///   - canMerge: Whether the value merges three ways.
  ///   - adoptOnly: A reload, without the file's lock: it may adopt, never write.
  static func decide(
    _ change: ChangeKind, pending: Bool, canMerge: Bool, adoptOnly: Bool
  ) -> Decision {
    switch (change, pending) {
    case (.unchanged, _): return .nothing
    case (_, false): return .adopt
    case (_, true) where adoptOnly: return .saveNext
    case (.deleted, true): return .rewrite
    case (.replaced, true): return canMerge ? .merge : .keepBoth
    }
  }
}
