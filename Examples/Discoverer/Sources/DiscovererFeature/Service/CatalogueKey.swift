import Foundation
import Keepsake

/// The bundled catalogue as a read-only shared value: loaded once, in the background, by every
/// `@SharedReader(.catalogue)` of the app.
///
/// ```swift
/// @SharedReader(.catalogue) var catalogue = Catalogue.empty
/// if $catalogue.isLoading { showSpinner() }
/// ```
///
/// A catalogue that fails to decode or validate shows as `loadError` (a ``CatalogueError``
/// naming the place to fix); the reader keeps the empty catalogue.
nonisolated public struct CatalogueKey: SharedReaderKey {
  public var id: SharedKeyID { SharedKeyID(kind: "catalogue", name: "bundled") }

  public func load() async throws -> Catalogue? {
    // NB: `Bundle.module` is MainActor in a module with default MainActor isolation.
    try await MainActor.run { try Catalogue.bundled() }
  }
}

extension SharedReaderKey where Self == CatalogueKey {
  /// The catalogue bundled with the app.
  nonisolated public static var catalogue: Self { CatalogueKey() }
}

extension Catalogue {
  /// A catalogue with nothing in it: what a reader shows until the real one has loaded.
  nonisolated public static var empty: Catalogue {
    Catalogue(tracks: [], artists: [], playlists: [])
  }
}
