import Dispatch
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
  /// Writes every pending change when the process is asked to stop (`SIGTERM`, `SIGINT`), then
  /// ends it as the signal would have.
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
  /// REPL's Ctrl-C) and change how the app ends. Calling it again does nothing.
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
enum TerminationFlush {
  /// How long a termination signal lets open transactions end before it abandons them.
  static let transactionGrace: Duration = .seconds(5)

  private struct Sources: @unchecked Sendable {
    // NB: dispatch sources are only created and kept here, under the mutex, never touched again.
    var all: [any DispatchSourceSignal] = []
  }

  private static let sources = Mutex(Sources())
  /// The termination signal received, or 0.
  private static let received = Atomic<Int32>(0)

  static func install() {
    sources.withLock { sources in
      guard sources.all.isEmpty else { return }
      // NB: a program that ends normally while the flush after a signal runs (its transaction
      // ended, `main` returned) still ends by the signal; registered first, this runs after the
      // exit flush.
      atexit { TerminationFlush.endIfSignalled() }
      for signalNumber in [SIGTERM, SIGINT] {
        // NB: ignored by default, so the signal reaches the source instead of ending the process.
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { terminate(by: signalNumber) }
        source.resume()
        sources.all.append(source)
      }
    }
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
    // NB: libdispatch blocks the signals its sources watch; unblocked so the raise is delivered.
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signalNumber)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(signalNumber)
    _exit(128 + signalNumber)
  }
}
