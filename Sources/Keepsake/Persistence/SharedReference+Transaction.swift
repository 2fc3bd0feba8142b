import Foundation
import Synchronization

/// Transactions: read-modify-write of a file that other processes cannot interleave with.
extension SharedReference {
  /// Runs `body` on the freshest stored value under the file's cross-process lock, then writes
  /// the result durably before releasing the lock.
  func update<R: Sendable>(_ body: @Sendable (inout Value) throws -> R) async throws -> R {
    guard let coordinated else {
      let result = try withLock(body)
      if persists { try await save() }
      return result
    }
    return try await withoutActuallyEscaping(body) { body in
      let outcome: Result<R, any Error> = await onWriter {
        var result: R?
        do {
          try self.commit(coordinated, force: false, check: true) { result = try body(&$0) }
        } catch {
          return .failure(error)
        }
        guard let result else { return .failure(TransactionNotRun(key: self.key.id)) }
        return .success(result)
      }
      return try outcome.get()
    }
  }

  /// Holds the file's cross-process lock while `body` runs, with the value refreshed from the
  /// file first and every change written durably before the lock is released.
  func withTransaction<R>(
    isolation: isolated (any Actor)?, _ body: () async throws -> R
  ) async throws -> R {
    guard let coordinated else {
      let result = try await body()
      if persists { try await save() }
      return result
    }
    let id = ObjectIdentifier(self)
    // A transaction of this reference inside another one is part of it.
    if TransactionScope.active.contains(id) { return try await body() }
    await transactions.enter()
    defer { transactions.leave() }
    let begun: (any Error)? = await onWriter {
      do {
        let lock = try coordinated.lock(in: self.context)
        self.heldLock.withLock { $0 = lock }
        try self.commit(coordinated, force: false, check: true)
        return nil
      } catch {
        self.releaseHeldLock()
        return error
      }
    }
    if let begun { throw begun }
    let result: Result<R, any Error>
    do {
      let value = try await TransactionScope.$active.withValue(
        TransactionScope.active.union([id]), operation: body, isolation: isolation)
      result = .success(value)
    } catch {
      result = .failure(error)
    }
    let ended: (any Error)? = await onWriter {
      defer { self.releaseHeldLock() }
      do {
        try self.commit(coordinated, force: false)
        return nil
      } catch {
        return error
      }
    }
    let value = try result.get()
    if let ended { throw ended }
    return value
  }

  private func releaseHeldLock() {
    let lock = heldLock.withLock { lock in
      defer { lock = nil }
      return lock
    }
    lock?.release()
  }
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

/// A first-in, first-out gate that lets one task through at a time.
final class AsyncGate: Sendable {
  private struct State {
    var busy = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// Waits for the gate, then holds it until ``leave()``.
  func enter() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let enterNow = state.withLock { state -> Bool in
        if !state.busy {
          state.busy = true
          return true
        }
        state.waiting.append(continuation)
        return false
      }
      if enterNow { continuation.resume() }
    }
  }

  /// Lets the next waiting task through.
  func leave() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiting.isEmpty else {
        state.busy = false
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
