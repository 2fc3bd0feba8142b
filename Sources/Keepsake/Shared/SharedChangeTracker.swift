import Foundation
import Synchronization

/// Remembers, per shared reference of one ``StorageContext``, the last value a test asserted,
/// so a test library can require every change of shared state to be asserted.
///
/// Keepsake's own `TestStore` (in `KeepsakeTesting`) uses one; any test can, in swift-sharing's
/// shape:
///
/// ```swift
/// let tracker = SharedChangeTracker()
/// tracker.track { $count.withLock { $0 += 1 } }     // or `await tracker.track { ... }`
/// #expect(tracker.hasChanges)
/// tracker.assert { $count.withLock { $0 = 1 } }     // say what is expected
/// #expect(!tracker.hasChanges)
/// ```
///
/// or installed for as long as a test library needs it:
///
/// ```swift
/// let tracker = SharedChangeTracker.install()   // in the running test's context
/// defer { tracker.uninstall() }
/// feature.run()
/// for change in tracker.changes { report(change) }   // what changed and was not asserted
/// ```
///
/// NB: where swift-sharing records the changes made inside `track` only, this tracker follows
/// every reference of its context while `track` runs, from any task or thread, and compares
/// live values with the last asserted ones: a change made after `track` returned shows too.
///
/// From installation on, every reference of the context is tracked, including those created
/// later and those changed from a detached task or another thread (a reference remembers its
/// context; a task-local would lose them). A reference's *snapshot* starts as its value when it
/// became tracked and changes only through ``assert(_:)`` (or ``reset()``), so it is the value
/// the test last asserted; the live value is never touched by the tracker.
///
/// While ``assert(_:)`` runs, reads of a tracked ``Shared`` return its snapshot and
/// ``Shared/withLock(_:)`` changes the snapshot instead of the live value, so a closure describes
/// the expected value without changing the real one.
///
/// Nonisolated and thread-safe; install one per context at a time (installing replaces the
/// previous one).
public final class SharedChangeTracker: Sendable {
  private struct Entry: Sendable {
    let reference: any SharedChangeTrackable
    var snapshot: any Sendable
  }

  /// One tracked reference, with a value (its live value or its snapshot, as asked).
  package struct TrackedValue: Sendable {
    /// The identity of the reference's key.
    package let keyID: SharedKeyID
    /// The key as an app writes it (`.inMemory("drafts")`), for messages.
    package let keyDescription: String
    /// The value.
    package let value: any Sendable
  }

  /// A tracked value whose live value differs from the one last asserted.
  public struct Change: Sendable, CustomStringConvertible {
    /// The identity of the key.
    public let keyID: SharedKeyID
    /// The key as an app writes it: `.appStorage("count")`.
    public let keyDescription: String
    /// The value the test last asserted (or had when tracking began).
    public let expected: any Sendable
    /// The live value.
    public let actual: any Sendable

    /// `.appStorage("count"): 0 → 1`.
    public var description: String {
      "\(keyDescription): \(String(reflecting: expected)) → \(String(reflecting: actual))"
    }
  }

  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
  private let context: StorageContext
  /// Whether ``uninstall()`` removed it for good.
  private let retired = Atomic(false)

  @TaskLocal private static var expecting: SharedChangeTracker?

  /// A tracker of the references of `context` that tracks nothing until ``track(_:)-(()->R)``
  /// (or ``install(in:)``).
  ///
  /// - Parameter context: The context whose references are tracked; by default the current
  ///   one (under test, the running test's).
  public init(in context: StorageContext = .current) {
    self.context = context
  }

  /// Tracks every shared reference of the tracker's context while `body` runs: the values they
  /// have when it starts (or had when last asserted) are the starting point.
  public func track<R>(_ body: () throws -> R) rethrows -> R {
    install()
    defer { withdraw() }
    return try body()
  }

  /// Tracks every shared reference of the tracker's context while `body` runs, as
  /// ``track(_:)-(()->R)`` does.
  public func track<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async rethrows -> R {
    install()
    defer { withdraw() }
    return try await body()
  }

  /// Starts tracking every shared reference of `context`, replacing the tracker installed
  /// there, if any: the values they have now are the starting point.
  ///
  /// - Parameter context: The context whose references are tracked; by default the current
  ///   one (under test, the running test's).
  public static func install(in context: StorageContext = .current) -> SharedChangeTracker {
    let tracker = SharedChangeTracker(in: context)
    tracker.install()
    return tracker
  }

  private func install() {
    context.references.withLock { references in
      // NB: installing under the references lock orders this with reference creation, which
      // reads the tracker under the same lock once its reference exists: none is missed, and
      // registering twice is harmless (a reference keeps its first snapshot).
      for slot in references.values {
        if let reference = slot.reference as? any SharedChangeTrackable {
          register(reference)
        }
      }
      context.changeTracking.install(self)
    }
  }

  /// Stops tracking: removes this tracker from its context, if it is still the installed one.
  public func uninstall() {
    retired.store(true, ordering: .relaxed)
    withdraw()
  }

  /// Removes this tracker from its context, if it is still the installed one.
  private func withdraw() {
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

  /// Runs `body` with reads and changes of this tracker's references redirected to their
  /// snapshots: what `body` changes is what the test expects, and becomes the value asserted.
  ///
  /// Only the task that runs `body` sees snapshots; other threads keep using live values.
  /// A tracker between two ``track(_:)-(()->R)`` calls is installed while `body` runs, so its
  /// references' snapshots are the ones `body` sees; one removed with ``uninstall()`` is not.
  public func assert<R>(_ body: () throws -> R) rethrows -> R {
    let installed = context.references.withLock { _ in context.changeTracking.tracker === self }
    let lends = !installed && !retired.load(ordering: .relaxed)
    if lends { install() }
    defer { if lends { withdraw() } }
    return try Self.$expecting.withValue(self, operation: body)
  }

  /// Whether any tracked value differs from the one last asserted; see ``changes``.
  public var hasChanges: Bool { !changes.isEmpty }

  /// The tracked values whose live value differs from the one last asserted, in the order of
  /// their keys' descriptions.
  ///
  /// Values are compared with `==` when their type is `Equatable`, otherwise by their dump
  /// (`Swift.dump`), which tells most changes apart but may take two equal dictionaries for
  /// different.
  public var changes: [Change] {
    let entries = entries.withLock { Array($0.values) }
    return entries.compactMap { entry -> Change? in
      let live = entry.reference.untrackedValue
      guard !Self.equal(entry.snapshot, live) else { return nil }
      return Change(
        keyID: entry.reference.trackedKeyID,
        keyDescription: entry.reference.trackedKeyDescription, expected: entry.snapshot,
        actual: live)
    }
    .sorted { $0.keyDescription < $1.keyDescription }
  }

  /// Accepts every live value as asserted.
  public func reset() {
    entries.withLock { entries in
      for (id, entry) in entries { entries[id]?.snapshot = entry.reference.untrackedValue }
    }
  }

  /// Whether two values are the same: by `==` for `Equatable` values, else by their dumps.
  static func equal(_ lhs: any Sendable, _ rhs: any Sendable) -> Bool {
    if let lhs = lhs as? any Equatable {
      func same<T: Equatable>(_ lhs: T) -> Bool { (rhs as? T) == lhs }
      return same(lhs)
    }
    var left = ""
    var right = ""
    dump(lhs, to: &left)
    dump(rhs, to: &right)
    return left == right
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
      TrackedValue(
        keyID: $0.reference.trackedKeyID, keyDescription: $0.reference.trackedKeyDescription,
        value: $0.reference.untrackedValue)
    }
  }

  /// The snapshot of every tracked reference.
  package func snapshots() -> [TrackedValue] {
    entries.withLock { entries in
      entries.values.map {
        TrackedValue(
          keyID: $0.reference.trackedKeyID, keyDescription: $0.reference.trackedKeyDescription,
          value: $0.snapshot)
      }
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
