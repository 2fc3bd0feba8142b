import Dispatch
import Foundation
import Synchronization

/// What one reference of a file key knows for syncing: whether the file is in a synced folder,
/// the version it last read or wrote (the parent of its next save's ancestry), how to tell the
/// reference about conflicts, and the scans of the folder for sync engines' copies.
///
/// Scans run on one background queue for the whole process (`SyncState.queue`), coalesced:
/// many changes in a row make one scan. A scan takes the file's cross-process lock, like every
/// save, so it is safe beside this reference's saves and any other process's (see
/// `SyncResolver`).
final class SyncState: Sendable {
  typealias Mode = SyncMode

  /// What the reference knows of its file, whose lock guards these fields too: a file key's
  /// reference has one lock for its file, whoever asks.
  let file: KnownFile

  init(file: KnownFile = KnownFile()) { self.file = file }

  /// The queue every scan of the process runs on.
  static var queue: DispatchQueue { SyncQueue.queue }

  // MARK: - Mode

  /// Whether the file is synced, deciding it now if it was not: from `data` (a file whose
  /// bytes carry ancestry already is), else from the folder's markers (`engine`, when the
  /// caller looked them up already).
  func isSynced<Value>(
    _ target: SyncTarget<Value>, in context: StorageContext, data: Data?,
    engine known: SyncEngine?? = nil
  ) -> Bool {
    isSynced(
      folderPath: target.folderPath, carriesAncestry: target.carriesAncestry, in: context,
      data: data, engine: known)
  }

  /// ``isSynced(_:in:data:engine:)`` of the file in the folder at `folderPath`, whose format
  /// carries ancestry when `carriesAncestry`.
  func isSynced(
    folderPath: String, carriesAncestry: Bool, in context: StorageContext, data: Data?,
    engine known: SyncEngine?? = nil
  ) -> Bool {
    switch file.withSyncFields({ $0.mode }) {
    case .synced: return true
    case .notSynced where !(data.map(Self.carriesAncestry) ?? false): return false
    default: break
    }
    let engine = known ?? SyncFolder.engine(containingPath: folderPath, in: context.fileSystem)
    let synced =
      engine != nil || (carriesAncestry && (data.map(Self.carriesAncestry) ?? false))
    file.withSyncFields { fields in
      if case .synced = fields.mode { return }
      fields.mode = synced ? .synced(engine) : .notSynced
    }
    return synced
  }

  /// Marks the file synced: a copy was seen beside it.
  func markSynced(by engine: SyncEngine?) {
    file.withSyncFields { fields in
      if case .synced(let known?) = fields.mode, engine == nil || known == engine { return }
      fields.mode = .synced(engine)
    }
  }

  var mode: Mode { file.withSyncFields { $0.mode } }

  private static func carriesAncestry(_ data: Data) -> Bool {
    data.starts(with: #"{"ancestry":"#.utf8)
  }

  // MARK: - The version the key knows

  /// The version the key last read or wrote, also once a reference found the file gone (see
  /// `FileStorageKey.syncDidRead(_:in:engine:)`); `nil` when the key has not read it in sync
  /// mode, or a load found no file.
  var known: FileVersion? { file.withSyncFields { $0.known } }

  func setKnown(_ version: FileVersion) { file.withSyncFields { $0.known = version } }

  /// Forgets the version: the key read no file, and its next save is made on nothing.
  func forgetKnown() { file.withSyncFields { $0.known = nil } }

  /// This device's ID, read from the store once per reference.
  func device<Value>(_ target: SyncTarget<Value>, in context: StorageContext) -> String {
    if let device = file.withSyncFields({ $0.device }) { return device }
    let device = (try? target.store(in: context).deviceID()) ?? Ancestry.unknownWriter
    file.withSyncFields { $0.device = device }
    return device
  }

  // MARK: - The file's lock

  /// `lock`, counted while this reference holds it: a merge made while it does must not take it
  /// again (it would wait for itself).
  func holding(_ lock: FileLock) -> FileLock {
    file.withSyncFields { $0.locksHeld += 1 }
    return FileLock { [self] in
      lock.release()
      file.withSyncFields { $0.locksHeld -= 1 }
    }
  }

  /// Whether this reference holds the file's lock now.
  var holdsLock: Bool { file.withSyncFields { $0.locksHeld > 0 } }

  // MARK: - Reporting

  /// Connects the reference: its default (the base when no common version is known) and where
  /// conflicts go; reports made before (by the merge at load) are delivered now.
  ///
  /// `timing` is the reference's clock and how it runs work later (its scheduler's): reports
  /// are spaced out on it, so a test's or a simulation's clock drives them too.
  func attach<Value: Sendable>(
    fallback: Value, timing: ReportTiming = .live,
    report: @escaping @Sendable (SharedConflict) -> Void
  ) {
    let box = FallbackBox(value: fallback)
    file.withSyncFields {
      $0.fallback = box
      $0.report = report
      $0.timing = timing
    }
    deliver()
  }

  /// The reference's default, once attached, as a `Value`.
  func fallback<Value>(as type: Value.Type) -> Value? {
    guard let box = file.withSyncFields({ $0.fallback }) else { return nil }
    return box.value as? Value
  }

  /// How far apart reports reach the reference.
  ///
  /// NB: `lastConflict` holds one report, and an observer can read it only after it changed:
  /// two copies merged in one scan would otherwise replace each other within microseconds, and
  /// the app would hear of one. Spaced out, an app that reacts to each change sees each.
  static var reportSpacing: Duration { .milliseconds(100) }

  /// Tells the reference (spaced out, see ``reportSpacing``), or keeps the report until it
  /// attaches.
  func report(_ conflict: SharedConflict) {
    file.withSyncFields { $0.pendingReports.append(conflict) }
    deliver()
  }

  /// Delivers the next pending report, unless one was delivered less than ``reportSpacing``
  /// ago: then it comes later, on the sync queue.
  private func deliver() {
    let (next, report, wait, timing) = file.withSyncFields {
      fields -> (SharedConflict?, (@Sendable (SharedConflict) -> Void)?, Duration?, ReportTiming?)
      in
      guard let report = fields.report, let timing = fields.timing,
        !fields.pendingReports.isEmpty, !fields.deliveryScheduled
      else { return (nil, nil, nil, nil) }
      // NB: the clock only when there is something to deliver: every file key's creation
      // attaches, with nothing pending.
      let now = timing.now()
      if let last = fields.lastDelivery, now - last < Self.reportSpacing {
        fields.deliveryScheduled = true
        return (nil, nil, Self.reportSpacing - (now - last), timing)
      }
      fields.lastDelivery = now
      return (fields.pendingReports.removeFirst(), report, nil, nil)
    }
    if let next, let report {
      report(next)
      if file.withSyncFields({ !$0.pendingReports.isEmpty }) { deliver() }
    } else if let wait, let timing {
      timing.after(wait) { [self] in
        file.withSyncFields { $0.deliveryScheduled = false }
        deliver()
      }
    }
  }

  /// Notes that this reference made the copy `name` itself: its app heard of it already.
  func noteOwnCopy(_ name: String) {
    _ = file.withSyncFields { $0.reported.insert(name) }
  }

  /// Reports `conflict` about the copy `name` unless this reference already did.
  func reportOnce(_ conflict: SharedConflict, about name: String) {
    guard file.withSyncFields({ $0.reported.insert(name).inserted }) else { return }
    report(conflict)
  }

  // MARK: - Waiting for a base

  /// How long this reference has waited for a base to merge the copy `name`, starting now if
  /// it had not.
  func waited(for name: String) -> Duration {
    let now = ContinuousClock.now
    let since = file.withSyncFields { fields in
      if let since = fields.waitingSince[name] { return since }
      fields.waitingSince[name] = now
      return now
    }
    return since.duration(to: now)
  }

  func stopWaiting(for name: String) {
    _ = file.withSyncFields { $0.waitingSince.removeValue(forKey: name) }
  }

  /// Whether this reference waits for a base to merge the copy `name`.
  func isWaiting(for name: String) -> Bool {
    file.withSyncFields { $0.waitingSince[name] != nil }
  }

  // MARK: - Scans

  /// Scans soon on the background queue, unless a scan is already due.
  func scheduleScan<Value>(
    _ target: SyncTarget<Value>, in context: StorageContext, after delay: Duration = .zero
  ) {
    runOnce(.scan, after: delay) { [self] in
      SyncResolver(target: target, context: context, state: self).scan()
    }
  }

  /// Runs `work` on the background queue after `delay`, unless work of its kind is due already;
  /// not once the reference is gone.
  private func runOnce(
    _ kind: Coalesced, after delay: Duration, _ work: @escaping @Sendable () -> Void
  ) {
    let due = file.withSyncFields { fields -> Bool in
      guard fields.isActive, !fields.exchange(kind, to: true) else { return false }
      return true
    }
    guard due else { return }
    let run: @Sendable () -> Void = { [self] in
      let active = file.withSyncFields { fields -> Bool in
        _ = fields.exchange(kind, to: false)
        return fields.isActive
      }
      if active { work() }
    }
    if delay == .zero {
      Self.queue.async(execute: run)
    } else {
      Self.queue.asyncAfter(deadline: .now() + delay.timeInterval, execute: run)
    }
  }

  /// Notes that this reference kept the change `name` beside the file itself.
  func noteOwnKeptChange(_ name: String) {
    _ = file.withSyncFields { $0.ownKeptChanges.insert(name) }
  }

  /// Whether this reference kept the change `name` itself.
  func isOwnKeptChange(_ name: String) -> Bool {
    file.withSyncFields { $0.ownKeptChanges.contains(name) }
  }

  /// Runs `takeIn` soon on the background queue, unless it is already due: another process
  /// kept a change beside the file (see `FileStorageKey+Unsaved.swift`), and this one may be
  /// able to merge it now, rather than at its next launch.
  ///
  /// NB: a short delay lets the copy's own writes (a temporary file, then its rename) settle.
  func scheduleTakeIn(_ takeIn: @escaping @Sendable () -> Void) {
    runOnce(.takeIn, after: .milliseconds(50), takeIn)
  }

  /// The file changed: in a synced folder, another device's version may have replaced a save
  /// of this one (see `SyncResolver`), so it is scanned.
  func fileChanged<Value>(_ target: SyncTarget<Value>, in context: StorageContext) {
    guard case .synced = mode else { return }
    // NB: a short delay lets a burst of changes (an engine's temporary file, then its rename)
    // settle into one scan.
    scheduleScan(target, in: context, after: .milliseconds(50))
  }

  /// Stops scanning: the reference is gone.
  func cancel() { file.withSyncFields { $0.isActive = false } }
}

/// A reference's default, untyped (see `SyncState`).
struct FallbackBox: Sendable {
  let value: any Sendable
}

/// The queue of every file key's sync scans, one for the process.
private enum SyncQueue {
  static let queue: DispatchQueue = {
    // NB: a process that exits normally (a command-line tool's one command) first lets the
    // queue write the versions it was given to keep: the next run's merge may need them.
    atexit { SyncQueue.drain() }
    return DispatchQueue(label: "keepsake.sync", qos: .utility)
  }()

  /// Waits for the work queued so far.
  ///
  /// NB: called by the `atexit` handler, on the thread that exits, never on the queue.
  static func drain() { queue.sync {} }
}

/// Whether a file is in a synced folder.
enum SyncMode: Sendable, Equatable {
  /// Not decided yet.
  case unknown
  /// No engine's marker above it, no copy seen, no ancestry in it: its bytes stay exactly
  /// as they were always written.
  case notSynced
  /// In a synced folder (the engine, when a marker or a copy named it).
  case synced(SyncEngine?)
}

/// Work of the sync queue that runs once however often it is asked for before it runs.
private enum Coalesced {
  case scan, takeIn
}

extension SyncStateFields {
  /// The flag of `kind`'s work set to `value`; what it was.
  fileprivate mutating func exchange(_ kind: Coalesced, to value: Bool) -> Bool {
    switch kind {
    case .scan:
      defer { scanScheduled = value }
      return scanScheduled
    case .takeIn:
      defer { takeInScheduled = value }
      return takeInScheduled
    }
  }
}

/// What a ``SyncState`` keeps, under its ``KnownFile``'s lock.
///
/// NB: a type of its own, without the value's type (the fallback is boxed): nested in the class
/// when it was generic, its metadata was looked up at run time on every turn of the lock, five
/// times a file key's creation (see "File keys" in `Benchmarks/README.md`).
struct SyncStateFields {
  /// The reference's default, once attached.
  ///
  /// NB: untyped, so the class is not generic (a generic class's metadata is looked up at run
  /// time on every file key's creation and drop, for a value read only when another device's
  /// copy is merged); in a box, so "not attached" is never confused with an optional value's
  /// attached `nil` (a `nil` of `(any Sendable)?` cast to an optional `Value` succeeds).
  var fallback: FallbackBox?
  var mode = SyncMode.unknown
  var known: FileVersion?
  var device: String?
  var report: (@Sendable (SharedConflict) -> Void)?
  var pendingReports: [SharedConflict] = []
  /// Copies already reported as kept or unreadable: told once per reference.
  var reported: Set<String> = []
  /// When this reference first needed a base it does not hold, per copy.
  var waitingSince: [String: ContinuousClock.Instant] = [:]
  var scanScheduled = false
  var takeInScheduled = false
  /// The changes this reference kept beside the file itself: it still holds them, and saves
  /// them when it can.
  var ownKeptChanges: Set<String> = []
  var isActive = true
  /// How many of the file's locks this reference holds now (a save's, a transaction's).
  var locksHeld = 0
  var lastDelivery: Duration?
  var timing: ReportTiming?
  var deliveryScheduled = false
}

/// The clock reports are spaced out on, and how work runs later on it: the reference's own
/// scheduler's, so a test's manual clock or a simulation's virtual one drives them.
struct ReportTiming: Sendable {
  let now: @Sendable () -> Duration
  let after: @Sendable (Duration, @escaping @Sendable () -> Void) -> Void

  /// Real time, later work on the sync queue.
  static let live = ReportTiming(
    now: { .nanoseconds(Int64(bitPattern: DispatchTime.now().uptimeNanoseconds)) },
    after: { delay, work in
      SyncState.queue.asyncAfter(deadline: .now() + delay.timeInterval) {
        work()
      }
    })
}
