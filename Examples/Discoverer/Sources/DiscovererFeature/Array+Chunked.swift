extension Array {
  /// Splits the array into consecutive slices of at most `size` elements, in order.
  ///
  /// The last chunk holds whatever remains, so it may be shorter; an empty array gives no chunks.
  /// The view models use it to send large writes in batches the service accepts.
  ///
  /// ```swift
  /// [1, 2, 3, 4, 5].chunked(into: 2)  // [[1, 2], [3, 4], [5]]
  /// ```
  ///
  /// - Important: Declared `nonisolated` on purpose. This module is built with
  ///   `defaultIsolation(MainActor.self)`, so without the annotation this pure function would
  ///   be `@MainActor`, and a caller on another executor (a test suite that is not `@MainActor`,
  ///   a background task) would trap the whole process at run time.
  ///
  /// - Precondition: `size` is greater than zero.
  nonisolated public func chunked(into size: Int) -> [[Element]] {
    precondition(size > 0, "chunked(into:) needs a chunk size above zero, got \(size).")
    return stride(from: 0, to: count, by: size).map { start in
      Array(self[start..<Swift.min(start + size, count)])
    }
  }
}
