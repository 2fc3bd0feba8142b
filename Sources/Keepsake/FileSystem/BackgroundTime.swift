import Foundation
import Synchronization

/// Time asked of the system while a file lock is held, so an app is not suspended holding it.
///
/// An iOS app suspended while it holds a lock on a file in an App Group container is killed
/// (`0xdead10cc`), and while it is suspended no other process (its widget, its extension) can
/// take the lock. So every lock a ``LocalFileSystem`` takes is held inside a span that asks for
/// background time where the system has such a thing (`performExpiringActivity` on iOS, tvOS,
/// watchOS and visionOS), and the span ends when the lock is released, on every path. macOS and
/// Linux do not suspend processes this way: there a span costs nothing.
///
/// When the system says the time is up, the span is marked expired: the write in progress still
/// ends (a lock is never released in the middle of the atomic write) and the lock is released
/// then. The system may suspend the app right after; the file is whole either way, and a change
/// not yet written stays pending (and, at the app's next launch, is saved then).
struct BackgroundTime: Sendable {
  /// Starts a span named `reason`; the returned span ends it.
  var begin: @Sendable (_ reason: String) -> Span

  /// Spans with these bodies.
  init(begin: @escaping @Sendable (_ reason: String) -> Span) {
    self.begin = begin
  }

  /// A span of asked-for time, ended once.
  final class Span: Sendable {
    private let onEnd: Mutex<(@Sendable () -> Void)?>
    private let expiredFlag = Atomic(false)

    /// A span that runs `end` once, when ended.
    init(end: @escaping @Sendable () -> Void) {
      onEnd = Mutex(end)
    }

    /// Whether the system said the time is up.
    var isExpired: Bool { expiredFlag.load(ordering: .acquiring) }

    /// Records that the system said the time is up.
    func expire() { expiredFlag.store(true, ordering: .releasing) }

    /// Ends the span; ending it again does nothing.
    func end() {
      let end = onEnd.withLock { end in
        defer { end = nil }
        return end
      }
      end?()
    }
  }

  /// Nothing to ask for: processes are not suspended while they hold a lock.
  static let none = BackgroundTime { _ in Span(end: {}) }

  /// The system's: `performExpiringActivity` where apps are suspended, else ``none``.
  static var live: BackgroundTime {
    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
      BackgroundTime { reason in
        // NB: the activity lasts while its block runs; the block waits until the span ends. The
        // system calls the block again, with `expired` true, when the time is up.
        let ended = DispatchSemaphore(value: 0)
        let span = Span { ended.signal() }
        ProcessInfo.processInfo.performExpiringActivity(withReason: reason) { expired in
          if expired {
            span.expire()
          } else {
            ended.wait()
          }
        }
        return span
      }
    #else
      none
    #endif
  }
}
