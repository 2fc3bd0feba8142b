import Foundation

extension StorageContext {
  /// The reference of `key` in this context, created (and loaded) on first use.
  func reference<Key: SharedKey>(
    for key: Key, default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value> {
    references.withLock { references in
      if let existing = references[key.id] {
        guard let reference = existing as? SharedReference<Key.Value> else {
          preconditionFailure(
            "The key \(key.id) is already used with another value type in \(self). A key "
              + "names one stored value; give each type its own key.")
        }
        return reference
      }
      let reference = SharedReference(key: key, context: self, default: makeDefault)
      references[key.id] = reference
      return reference
    }
  }

  /// Writes every pending change of every key in this context, blocking until written: for the
  /// `atexit` handler, which cannot wait asynchronously.
  func flushSynchronously() {
    let all = references.withLock { Array($0.values) }
    for case let reference as any AnySharedReference in all { reference.flushSynchronously() }
  }

  /// Writes every pending change of every key in this context and waits for the writes.
  ///
  /// Call it before a process exits (a command-line tool's last step), so the latest values are
  /// on disk.
  ///
  /// - Throws: The first save error, after every key was flushed.
  public func flush() async throws {
    let all = references.withLock { Array($0.values) }
    var firstError: (any Error)?
    for case let reference as any AnySharedReference in all {
      do {
        try await reference.flushAndReport()
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    if let firstError { throw firstError }
  }
}
