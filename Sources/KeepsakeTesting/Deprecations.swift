import Foundation
import Keepsake

// Renamed API, kept working through forwarding declarations so existing code still compiles
// (with a warning that names the new spelling). Every rename is listed in CHANGELOG.md; the
// words themselves are defined in Keepsake's Glossary article.

// MARK: - The real-disk opt-in is "confined storage"

/// Renamed ``withConfinedStorage(isolation:_:)``.
@available(*, deprecated, renamed: "withConfinedStorage(isolation:_:)")
public func withRealDisk<R>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (URL) async throws -> R
) async rethrows -> R {
  try await withConfinedStorage(isolation: isolation, body)
}

extension IsolatedStorageTrait.Kind {
  /// Renamed ``inMemory``.
  @available(*, deprecated, renamed: "inMemory")
  public static var ephemeral: Self { .inMemory }

  /// Renamed ``confined``.
  @available(*, deprecated, renamed: "confined")
  public static var realDisk: Self { .confined }
}
