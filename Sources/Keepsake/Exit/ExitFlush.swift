import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes pending coalesced saves when the process exits normally (data-safety rule "An
/// acknowledged save is on disk"; see the Data safety article).
///
/// A command-line program that changes a file key and returns from `main` would otherwise lose
/// the change still waiting for its coalesced save. An `atexit` handler, registered the first
/// time a context on a real disk holds a file key, writes every pending value synchronously.
/// It cannot help a process that is killed or crashes; `save()` is the durable acknowledgement.
enum ExitFlush {
  private struct WeakContext {
    weak var context: StorageContext?
  }

  private static let contexts = Mutex<[WeakContext]>([])
  private static let registered = Mutex(false)

  /// Flushes `context`'s pending saves at exit; isolated contexts (``StorageContext/isIsolated``)
  /// are never flushed.
  static func watch(_ context: StorageContext) {
    guard !context.isIsolated else { return }
    contexts.withLock { contexts in
      contexts.removeAll { $0.context == nil }
      if !contexts.contains(where: { $0.context === context }) {
        contexts.append(WeakContext(context: context))
      }
    }
    let needsHandler = registered.withLock { registered in
      defer { registered = true }
      return !registered
    }
    if needsHandler { atexit { ExitFlush.flushAll() } }
  }

  /// Writes every pending save of every watched context, waiting for each; with a grace, open
  /// transactions are first given that long to end (a termination signal's flush).
  static func flushAll(waitingForTransactions grace: Duration? = nil) {
    let live = contexts.withLock { $0.compactMap(\.context) }
    for context in live { context.flushAtExit(waitingForTransactions: grace) }
  }
}
