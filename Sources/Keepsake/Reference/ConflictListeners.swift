/// The streams of a reference's conflict reports (``Shared/conflicts``), guarded by the lock of
/// its persistence parts: each report reaches every stream open when it was made, in order.
struct ConflictListeners: ~Copyable {
  private var next: UInt64 = 0
  private var open: [UInt64: AsyncStream<SharedConflict>.Continuation] = [:]

  /// Adds a stream's continuation; returns its identity, to remove it.
  mutating func add(_ continuation: AsyncStream<SharedConflict>.Continuation) -> UInt64 {
    next &+= 1
    open[next] = continuation
    return next
  }

  /// Removes the continuation of a stream that ended; returns it, to drop after the lock.
  mutating func remove(_ id: UInt64) -> AsyncStream<SharedConflict>.Continuation? {
    open.removeValue(forKey: id)
  }

  /// How many streams are open.
  var count: Int { open.count }

  /// Gives `conflict` to every open stream.
  ///
  /// NB: a yield only buffers, it never runs the listener, so it may run under the lock.
  func tell(_ conflict: SharedConflict) {
    for continuation in open.values { continuation.yield(conflict) }
  }
}
