import Foundation

/// The clock a storage context's saves run on: when a coalesced save fires, and how long a busy
/// lock is waited for by a scheduler that does not wait itself.
///
/// Live contexts run on real time. A test that checks *when* saves happen makes its context with
/// a manual clock and moves it by hand, so the test is exact however loaded the machine is:
///
/// ```swift
/// let clock = StorageClock.manual()
/// try await StorageContext.withValue(.inMemory(clock: clock)) {
///   @Shared(.fileStorage(url)) var notes = [String]()
///   $notes.withLock { $0.append("a") }
///   await clock.advance(by: .milliseconds(500))  // the coalesced save has run
/// }
/// ```
public final class StorageClock: Sendable {
  let scheduler: any PersistenceScheduler
  private let manual: ManualScheduler?

  init(scheduler: any PersistenceScheduler) {
    self.scheduler = scheduler
    self.manual = scheduler as? ManualScheduler
  }

  /// Real time: what every context uses unless told otherwise.
  public static let live = StorageClock(scheduler: DispatchScheduler())

  /// A clock that stands still until ``advance(by:)`` moves it.
  public static func manual() -> StorageClock { StorageClock(scheduler: ManualScheduler()) }

  /// How far a manual clock has been moved; real time since an arbitrary origin for the live one.
  public var now: Duration { scheduler.now() }

  /// Moves a manual clock forward, runs every timer that comes due (coalesced saves), and waits
  /// until the work they started is done.
  ///
  /// - Precondition: The clock is ``manual()``.
  public func advance(by duration: Duration) async {
    guard let manual else {
      preconditionFailure("StorageClock.advance(by:) moves a manual clock, not the live one.")
    }
    await manual.settle()
    manual.timers.advance(to: manual.timers.now + duration)
    await manual.settle()
  }

  /// Waits until the work already queued for references on a manual clock is done.
  ///
  /// - Precondition: The clock is ``manual()``.
  public func settle() async {
    guard let manual else {
      preconditionFailure("StorageClock.settle() waits for a manual clock, not the live one.")
    }
    await manual.settle()
  }
}
