import Foundation
import Synchronization

/// A request of a reference's persistence made without awaiting it (see ``Shared/drive(_:insideTransaction:then:)``).
package enum DrivenRequest: Sendable, Equatable {
  /// ``Shared/save()``.
  case save
  /// ``Shared/flush()``.
  case flush
  /// ``Shared/load()``.
  case load
  /// The start of ``Shared/withTransaction(isolation:_:)``: lock, refresh.
  case begin
  /// The end of a transaction whose body returned: write, unlock.
  case commit
  /// The end of a transaction whose body threw: restore, unlock.
  case rollback
  /// ``Shared/replaceUnreadableData()``.
  case replaceUnreadableData
}

// Driving a reference's persistence one request at a time, with a callback instead of an
// `await`: for the `simulation` campaign of `keepsake-stress`, which runs many simulated
// processes on one thread, from one seeded scheduler, and needs every step to be an event it
// chose.
extension Shared {
  /// Asks for `request` and calls `done` (on the lane, or at once) when its job ends.
  ///
  /// `insideTransaction` says the request comes from the body of an open transaction of this
  /// reference, as the task-local scope does for awaited requests.
  package func drive(
    _ request: DrivenRequest, insideTransaction: Bool = false,
    then done: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let reference = drivenReference
    let purpose: PersistenceMachine.Purpose
    switch request {
    case .save: purpose = .save(force: true)
    case .flush: purpose = .save(force: false)
    case .load: purpose = .load
    case .begin: purpose = .begin
    case .commit: purpose = .commit
    case .rollback: purpose = .rollback
    case .replaceUnreadableData: purpose = .replace
    }
    reference.drive(purpose, insideTransaction: insideTransaction, then: done)
  }

  /// Asks for an `update` with `body` and calls `done` when its job ends, with the body's
  /// error if it threw.
  package func driveUpdate(
    _ body: @escaping @Sendable (inout Value) throws -> Void,
    then done: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    guard let reference = current.keyReference else {
      preconditionFailure("driveUpdate(_:then:) drives a key's own reference, not a projection")
    }
    reference.driveUpdate(body, then: done)
  }

  /// The process is exiting: what is pending is written, unless a transaction is open.
  package func driveExit() { drivenReference.exiting() }

  /// The named state of the reference's persistence, for diagnostics.
  package var persistencePhase: String { drivenReference.phase }

  private var drivenReference: any DrivenReference {
    guard let driven = root as? any DrivenReference else {
      preconditionFailure("the root of a Shared is always a key's reference")
    }
    return driven
  }
}

/// The reference of a root, seen through the operations driving needs.
protocol DrivenReference: AnyObject, Sendable {
  func drive(
    _ purpose: PersistenceMachine.Purpose, insideTransaction: Bool,
    then done: @escaping @Sendable (Result<Void, any Error>) -> Void)
  func exiting()
  var phase: String { get }
}

extension SharedReference: DrivenReference {
  func drive(
    _ purpose: PersistenceMachine.Purpose, insideTransaction: Bool,
    then done: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    send(
      .request(
        purpose, PersistenceMachine.Waiter(resume: done), insideTransaction: insideTransaction))
  }

  func driveUpdate(
    _ body: @escaping @Sendable (inout Value) throws -> Void,
    then done: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let failure = Mutex<(any Error)?>(nil)
    let token = persistence.keepUpdate(
      UpdateBody<Value> { value in
        let before = value
        do {
          try body(&value)
          return true
        } catch {
          value = before
          failure.withLock { $0 = error }
          return false
        }
      })
    send(
      .request(
        .update(token),
        // NB: weak: a job whose lane stops (a simulated process killed mid-update) never
        // ends, and a strong capture would keep the reference, its context and the whole
        // simulated schedule alive, for every such process of the campaign.
        PersistenceMachine.Waiter { [weak self] outcome in
          self?.persistence.forgetUpdate(token)
          if case .success = outcome, let error = failure.withLock({ $0 }) {
            done(.failure(error))
          } else {
            done(outcome)
          }
        }, insideTransaction: false))
  }

  func exiting() { send(.exiting) }

  var phase: String { "\(persistence.withLock { $0.phase })" }
}
