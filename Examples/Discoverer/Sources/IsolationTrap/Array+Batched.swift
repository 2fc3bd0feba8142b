// NB: the founding article's mistake, kept exactly as it was written so `DiscovererTests` can
// show the trap as it happens. This module is built with `defaultIsolation(MainActor.self)`, like
// `DiscovererFeature`, but this helper says nothing about its isolation: it is `@MainActor`
// without a word in the source, and its interface, seen from another module, shows none. Never
// call it from an app: `Array.chunked(into:)` in DiscovererFeature is the fixed helper.

extension Array {
  /// Splits the array into consecutive slices of at most `size` elements, in order.
  ///
  /// Pure as it looks, it is `@MainActor` (the module's default isolation): called off the main
  /// actor, the check in its closure traps and ends the whole process.
  ///
  /// - Precondition: `size` is greater than zero.
  public func batched(into size: Int) -> [[Element]] {
    precondition(size > 0, "batched(into:) needs a batch size above zero, got \(size).")
    return stride(from: 0, to: count, by: size).map { start in
      Array(self[start..<Swift.min(start + size, count)])
    }
  }
}
