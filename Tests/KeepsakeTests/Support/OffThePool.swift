import Foundation

/// Runs `body` on a thread of its own and returns what it returns, without holding a thread of
/// the cooperative pool while it runs.
///
/// NB: the pool has one thread per core: a test that blocks for seconds there, on a two-core
/// machine, stalls every other test of the process (the stress tool's tests have the same
/// helper, for its campaigns).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
