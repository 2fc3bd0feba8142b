import Synchronization

/// The streams of a reference's conflicts (``Shared/conflicts``): each report reaches every
/// stream open when it was made, in order.
final class ConflictListeners: Sendable {
  private struct Streams {
    var next: UInt64 = 0
    var open: [UInt64: AsyncStream<SharedConflict>.Continuation] = [:]
  }

  private let streams = Mutex(Streams())

  /// A stream of every report from now on; it stops listening when its iteration ends.
  func listen() -> AsyncStream<SharedConflict> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: SharedConflict.self, bufferingPolicy: .unbounded)
    let id = streams.withLock { streams in
      streams.next &+= 1
      streams.open[streams.next] = continuation
      return streams.next
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.streams.withLock { $0.open.removeValue(forKey: id) }
    }
    return stream
  }

  /// How many streams are open.
  var count: Int { streams.withLock { $0.open.count } }

  /// Gives `conflict` to every open stream.
  func tell(_ conflict: SharedConflict) {
    // NB: yielded under the lock, so two reports told from two threads reach every stream in
    // the order they were told; a yield only buffers, it never runs the listener.
    streams.withLock { streams in
      for continuation in streams.open.values { continuation.yield(conflict) }
    }
  }
}
