/// Where a screen stands with the data it shows.
///
/// Nonisolated: a plain value the view models publish and tests compare.
nonisolated public enum LoadState: Equatable, Sendable {
  /// Nothing has been requested yet.
  case idle
  /// The first request is in flight and nothing is shown yet.
  case loading
  /// Content is shown (possibly saved content, while a refresh failed).
  case loaded
  /// Nothing could be loaded; the associated text says why, for the listener.
  case failed(String)
}
