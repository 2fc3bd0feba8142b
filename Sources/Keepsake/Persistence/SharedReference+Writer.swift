import Dispatch
import Synchronization

// The writer queue: saves, reloads and flushes of a reference run on it, in order.

extension SharedReference {
  func onWriter<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    // NB: the block must not keep `work` alive once the caller resumes: `update` passes a
    // closure that only pretends to escape (`withoutActuallyEscaping`), and the runtime traps
    // if it is still referenced when that scope ends. libdispatch releases a block only after
    // it returns, so the closure is taken out of a box, called and dropped before resuming.
    let box = Mutex<(@Sendable () -> T)?>(work)
    return await withCheckedContinuation { continuation in
      writer.async {
        let value: T
        do {
          guard let work = box.withLock({ $0.take() }) else {
            preconditionFailure("a writer job ran twice")
          }
          value = work()
        }
        continuation.resume(returning: value)
      }
    }
  }

  /// Marks the writer queue, so a synchronous flush from the queue itself does not deadlock.
  static var writerKey: DispatchSpecificKey<ObjectIdentifier> { WriterKey.key }
}

/// The dispatch-specific key that marks a reference's writer queue.
private enum WriterKey {
  #if canImport(Darwin)
    // NB: an immutable token compared by identity; not marked Sendable in every Dispatch.
    nonisolated(unsafe) static let key = DispatchSpecificKey<ObjectIdentifier>()
  #else
    static let key = DispatchSpecificKey<ObjectIdentifier>()
  #endif
}
