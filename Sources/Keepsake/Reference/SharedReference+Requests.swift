import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// What the app asks of a reference's persistence: each request is one event for the machine
// (`PersistenceMachine`), answered when the job it starts ends.

extension SharedReference {
  /// Asks the machine for a job and waits until it ends.
  private func request(_ purpose: Machine.Purpose) async throws {
    let inside = TransactionScope.active.contains(ObjectIdentifier(self))
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      send(
        .request(
          purpose, Machine.Waiter { continuation.resume(with: $0) }, insideTransaction: inside))
    }
  }

  func save() async throws { try await request(.save(force: true)) }

  /// Writes a pending change now and waits for it; throws what that write ran into.
  func flush() async throws { try await request(.save(force: false)) }

  func load() async throws {
    // A reader key loads asynchronously, showing `isLoading` (see `SharedReaderKey.swift`).
    if let asynchronous = key as? any AsyncLoadingKey<Value> {
      return try await asynchronous.loadAgain(into: self)
    }
    try await request(.load)
  }

  /// Takes in what the key has for this reference now, as after an outside change, and waits
  /// until it is in.
  func reloadNow() async throws { try await request(.reload) }

  /// Writes what is pending now on the calling thread, waiting for the job the lane runs, unless
  /// a transaction is open (its intermediate value is never written).
  ///
  /// With a `deadline` (a termination signal's flush, on a thread of its own), a transaction
  /// under way is first given until then to end.
  func flushAtExit(waitingForTransactionsUntil deadline: ContinuousClock.Instant? = nil) {
    if let deadline {
      while persistence.withLock({ $0.transactionUnderWay }), ContinuousClock.now < deadline {
        usleep(1_000)
      }
    }
    lane.sync { send(.exiting) }
  }

  /// Moves unreadable stored data aside and saves the value in memory in its place.
  func replaceUnreadableData() async throws -> URL? {
    let inside = TransactionScope.active.contains(ObjectIdentifier(self))
    return try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<URL?, any Error>) in
      // NB: a replace always ends on the lane (its first step is the quarantine), where the
      // job's `work` may be read.
      let waiter = Machine.Waiter { [work] outcome in
        let url = work.quarantined
        work.quarantined = nil
        continuation.resume(with: outcome.map { url })
      }
      send(.request(.replace, waiter, insideTransaction: inside))
    }
  }

  /// Runs `body` on the freshest stored value under the file's cross-process lock, then writes
  /// the result durably before releasing the lock.
  func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    guard coordinated != nil else {
      let result = try withLock(body)
      if persists { try await save() }
      return result
    }
    // Inside a transaction of this reference, an update is part of it.
    if TransactionScope.active.contains(ObjectIdentifier(self)) { return try withLock(body) }
    return try await withoutActuallyEscaping(body) { body in
      let outcome = Mutex<Result<R, any Error>?>(nil)
      let token = persistence.keepUpdate(
        UpdateBody<Value> { value in
          // A body that throws changes nothing: its change is rolled back.
          let before = value
          do {
            let result = try body(&value)
            outcome.withLock { $0 = .success(result) }
            return true
          } catch {
            value = before
            outcome.withLock { $0 = .failure(error) }
            return false
          }
        })
      // NB: the body must be gone before `withoutActuallyEscaping` ends.
      defer { persistence.forgetUpdate(token) }
      try await request(.update(token))
      guard let result = outcome.withLock({ $0 }) else { throw TransactionNotRun(key: key.id) }
      return try result.get()
    }
  }

  /// Holds the file's cross-process lock while `body` runs, with the value refreshed from the
  /// file first; every change is written durably before the lock is released, and none if
  /// `body` throws (the value it began with is restored).
  func withTransaction<R>(
    isolation: isolated (any Actor)?, _ body: () async throws -> R
  ) async throws -> R {
    guard coordinated != nil else {
      let result = try await body()
      if persists { try await save() }
      return result
    }
    let id = ObjectIdentifier(self)
    // A transaction of this reference inside another one is part of it.
    if TransactionScope.active.contains(id) { return try await body() }
    try await request(.begin)
    let outcome: Result<R, any Error>
    do {
      outcome = .success(
        try await TransactionScope.$active.withValue(
          TransactionScope.active.union([id]), operation: body, isolation: isolation))
    } catch {
      outcome = .failure(error)
    }
    switch outcome {
    case .success(let value):
      try await request(.commit)
      return value
    case .failure(let error):
      try await request(.rollback)
      throw error
    }
  }
}

/// The bodies of `update`s waiting for their jobs, by token.
///
/// NB: not generic (the bodies are ``UpdateBody``s of the reference's value type): a generic
/// dictionary's metadata is looked up at run time, on every key's creation.
struct PendingUpdates: Sendable {
  var next: UInt64 = 0
  var bodies: [UInt64: any Sendable] = [:]
}

/// The body of an `update`, waiting under its token for its job to run it.
struct UpdateBody<Value>: Sendable {
  /// Runs the body on the value; `false` when it threw (the value is then as it was).
  let run: @Sendable (inout Value) -> Bool
}

/// The transactions the current task is inside of.
enum TransactionScope {
  @TaskLocal static var active: Set<ObjectIdentifier> = []
}

/// A transaction whose body never ran: the value was protected or could not be refreshed.
struct TransactionNotRun: Error, CustomStringConvertible {
  var key: SharedKeyID
  var description: String { "The transaction on \(key) did not run; nothing was changed." }
}
