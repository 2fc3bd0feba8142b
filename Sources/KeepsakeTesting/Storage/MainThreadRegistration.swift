import Dispatch
import Foundation
import Synchronization

/// Runs a registration once, on the main thread, whichever thread asks for it: Darwin's XCTest
/// throws when an observer is added elsewhere.
///
/// On the main thread it runs at once. Elsewhere it is handed to the main queue and the caller
/// goes on without waiting: XCTest runs test methods on the main thread, which may be blocked
/// waiting for the very work that asks (a test waiting on a semaphore, say), so waiting for the
/// main queue (`DispatchQueue.main.sync`) could deadlock. Until the main queue gets to it, a
/// later request made on the main thread runs it there and then.
final class MainThreadRegistration: Sendable {
  private let register: @Sendable () -> Void
  private let onMainQueue: @Sendable (@escaping @Sendable () -> Void) -> Void
  /// Whether the registration has run (or is running); read without a lock.
  private let done = Atomic<Bool>(false)
  /// Whether the main queue has been asked already.
  private let enqueued = Atomic<Bool>(false)

  /// A registration that `register` performs, on the main thread.
  ///
  /// - Parameters:
  ///   - onMainQueue: Runs work on the main thread later; the main dispatch queue by default.
  ///   - register: The registration; called once, on the main thread.
  init(
    onMainQueue: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = {
      DispatchQueue.main.async(execute: $0)
    },
    register: @escaping @Sendable () -> Void
  ) {
    self.onMainQueue = onMainQueue
    self.register = register
  }

  /// Whether the registration has run.
  var isDone: Bool { done.load(ordering: .acquiring) }

  /// Runs the registration now on the main thread, or asks the main queue to run it.
  ///
  /// Off the main thread it returns at once, without waiting for the main queue. Nothing happens
  /// once the registration has run.
  func request() {
    guard !done.load(ordering: .acquiring) else { return }
    if Thread.isMainThread {
      runOnMainThread()
    } else if !enqueued.exchange(true, ordering: .acquiringAndReleasing) {
      onMainQueue { self.runOnMainThread() }
    }
  }

  private func runOnMainThread() {
    guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
    register()
  }
}
