import Foundation

/// Runs `body` on a thread of its own and returns what it returns, without holding a thread of
/// the cooperative pool while it runs.
///
/// NB: a campaign blocks for seconds to minutes (child processes, Syncthing daemons, their
/// `fsync`s), and the pool has one thread per core: two such tests at once on a two-core machine
/// stall every other test of the process, long enough for a suite's time limit to fail it.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
