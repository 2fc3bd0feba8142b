import Foundation

/// The lock files of an ``InMemoryFileSystem``: exclusive, blocking, not reentrant, exactly like
/// `flock` on separate descriptors, so two storage contexts over one in-memory file system exclude
/// each other the way two processes do.
final class InMemoryFileLocks: @unchecked Sendable {
  // NB: `held` is only read and written with `condition` locked.
  private let condition = NSCondition()
  private var held: Set<String> = []

  /// Waits until `path` is free or `timeout` passes; returns whether the lock was taken.
  func acquire(_ path: String, timeout: Duration) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout.timeInterval)
    condition.lock()
    defer { condition.unlock() }
    while held.contains(path) {
      if !condition.wait(until: deadline) && held.contains(path) { return false }
    }
    held.insert(path)
    return true
  }

  func release(_ path: String) {
    condition.lock()
    held.remove(path)
    condition.broadcast()
    condition.unlock()
  }

  /// Whether someone holds the lock of `path` now.
  func isHeld(_ path: String) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return held.contains(path)
  }
}
