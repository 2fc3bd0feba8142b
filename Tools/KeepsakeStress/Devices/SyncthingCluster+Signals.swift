import Dispatch
import Foundation
import Keepsake
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A campaign ended by a signal (Ctrl-C, a CI job's timeout) stops its daemons too: they would
// otherwise go on running and syncing a scratch folder long after it.
extension SyncthingCluster {
  /// The `syncthing serve` processes the clusters of this process run now.
  static let running = Mutex<Set<pid_t>>([])

  /// The signal sources, once installed: kept for the life of the process.
  private static let signalSources = Mutex<[any DispatchSourceSignal]>([])

  /// From now on, `SIGINT`, `SIGTERM` and `SIGHUP` stop every daemon running (and its child),
  /// then end the process as the signal would have; installed once per process, and only for
  /// the signals nobody ignores or handles (a run under `nohup` goes on after `SIGHUP`).
  static func stopsDaemonsOnSignals() {
    signalSources.withLock { sources in
      guard sources.isEmpty else { return }
      for number in [SIGINT, SIGTERM, SIGHUP] where TerminationFlush.isAtDefaultAction(number) {
        // NB: the signal is taken from its default action first, so that the source sees it.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
          let pids = running.withLock { $0 }
          for pid in pids.flatMap({ [$0] + children(of: $0) }) { _ = kill(pid, SIGTERM) }
          signal(number, SIG_DFL)
          _ = kill(getpid(), number)
        }
        source.resume()
        sources.append(source)
      }
    }
  }
}
