import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension StorageContext {
  /// Writes every pending change when the process is asked to stop (`SIGTERM`, `SIGINT`, or
  /// `SIGHUP` when its terminal or SSH session closes), then ends it as the signal would have.
  ///
  /// Command-line programs and services call it once, at launch. Ctrl-C, `kill`,
  /// `systemctl stop` and `docker stop` send one of these signals, and a process they end gets
  /// no normal exit, so a change still waiting for its coalesced save would be lost with it.
  /// With this call, the first such signal lets open transactions end (up to a few seconds; one
  /// still open then is abandoned whole, never half written), writes what is pending in every
  /// context that is not isolated, and then ends the process with the signal, so its parent sees
  /// the conventional status (130 for Ctrl-C, 143 for `SIGTERM` in a shell). A second signal ends
  /// the process at once: what was written stays atomic.
  ///
  /// ```swift
  /// @main struct Tool {
  ///   static func main() async throws {
  ///     StorageContext.flushOnTermination()
  ///     ...
  ///   }
  /// }
  /// ```
  ///
  /// It is opt-in because signal handling belongs to the program: a library that installed
  /// handlers behind an app's back would replace the app's own (a server's graceful shutdown, a
  /// REPL's Ctrl-C) and change how the app ends. Only signals still at their default action are
  /// taken over: one the program handles (a daemon that reloads on `SIGHUP`) or ignores (a
  /// process under `nohup`) keeps its behaviour. Calling it again does nothing.
  ///
  /// On Apple platforms an app is not stopped by signals but suspended, then possibly ended
  /// without notice: flush when the scene goes to the background instead, for example
  /// `.onChange(of: scenePhase) { if $0 == .background { Task { try await
  /// StorageContext.current.flush() } } }`.
  public static func flushOnTermination() {
    TerminationFlush.install()
  }
}

/// The handlers of ``StorageContext/flushOnTermination()``.
///
/// NB: a signal handler may only do what is async-signal-safe, so it writes the signal's number
/// to a pipe, and a thread of its own reads it and flushes (the self-pipe idiom). A Dispatch
/// signal source is not enough on Linux: libdispatch blocks the signal only in the thread that
/// made the source, and an ignored signal delivered to any other thread is discarded.
package enum TerminationFlush {
  /// How long a termination signal lets open transactions end before it abandons them.
  static let transactionGrace: Duration = .seconds(5)

  private static let installed = Mutex(false)
  /// The termination signal received, or 0.
  ///
  /// NB: set by the signal handler itself (an atomic store is async-signal-safe), not only by
  /// the thread that flushes: a program whose `main` returns before that thread wakes (a loaded
  /// machine) must still end by the signal, not report success to whoever sent it.
  fileprivate static let received = Atomic<Int32>(0)

  static func install() {
    let first = installed.withLock { installed in
      defer { installed = true }
      return !installed
    }
    guard first else { return }
    // NB: the global is made now, never first in a signal handler (its lazy set-up is not
    // async-signal-safe).
    _ = received.load(ordering: .relaxed)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return }
    signalPipe = fds[1]
    let reading = fds[0]
    Thread.detachNewThread {
      var number: UInt8 = 0
      while true {
        let count = read(reading, &number, 1)
        if count == 1 { terminate(by: Int32(number)) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return }
      }
    }
    // NB: a program that ends normally while the flush after a signal runs (its transaction
    // ended, `main` returned) still ends by the signal; registered first, this runs after the
    // exit flush.
    atexit { TerminationFlush.endIfSignalled() }
    for signalNumber in [SIGTERM, SIGINT, SIGHUP] where isAtDefaultAction(signalNumber) {
      var action = sigaction()
      #if canImport(Darwin)
        action.__sigaction_u.__sa_handler = writeToSignalPipe
      #else
        action.__sigaction_handler.sa_handler = writeToSignalPipe
      #endif
      action.sa_flags = SA_RESTART
      sigemptyset(&action.sa_mask)
      sigaction(signalNumber, &action, nil)
    }
  }

  /// Whether `signalNumber` still does what it does by default: nobody handles or ignores it.
  package static func isAtDefaultAction(_ signalNumber: Int32) -> Bool {
    var current = sigaction()
    guard sigaction(signalNumber, nil, &current) == 0 else { return false }
    #if canImport(Darwin)
      let handler = current.__sigaction_u.__sa_handler
    #else
      let handler = current.__sigaction_handler.sa_handler
    #endif
    // NB: `SIG_DFL` is the null handler; `SIG_IGN` and a program's own are not.
    return current.sa_flags & SA_SIGINFO == 0 && handler == nil
  }

  /// Flushes, then ends the process with `signalNumber`.
  private static func terminate(by signalNumber: Int32) -> Never {
    // A second signal ends the process at once.
    signal(signalNumber, SIG_DFL)
    received.store(signalNumber, ordering: .sequentiallyConsistent)
    ExitFlush.flushAll(waitingForTransactions: transactionGrace)
    end(by: signalNumber)
  }

  /// At exit: ends the process by the termination signal it received, if any.
  private static func endIfSignalled() {
    let signalNumber = received.load(ordering: .sequentiallyConsistent)
    if signalNumber != 0 { end(by: signalNumber) }
  }

  private static func end(by signalNumber: Int32) -> Never {
    signal(signalNumber, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signalNumber)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(signalNumber)
    _exit(128 + signalNumber)
  }
}

/// The pipe's write end, for the signal handler, which can read nothing else.
// NB: written once by `install()` before any handler is installed, only read afterwards.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// The signal handler: async-signal-safe, it only notes the signal and writes its number to the
/// pipe.
private func writeToSignalPipe(_ signalNumber: Int32) {
  TerminationFlush.received.store(signalNumber, ordering: .sequentiallyConsistent)
  var number = UInt8(truncatingIfNeeded: signalNumber)
  _ = write(signalPipe, &number, 1)
}
