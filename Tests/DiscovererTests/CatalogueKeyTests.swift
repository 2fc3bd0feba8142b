import DiscovererFeature
import Foundation
import Keepsake
import KeepsakeTesting
import Testing

@Suite("Catalogue as a read-only key")
@MainActor
struct CatalogueKeyTests {
  @Test("The bundled catalogue loads in the background, with isLoading until it has")
  func loads() async throws {
    @SharedReader(.catalogue) var catalogue = Catalogue.empty
    #expect($catalogue.isLoading)
    // NB: a copy, as for a `@Shared` local: `$catalogue` is settable (rebinding a reader).
    let reader = $catalogue
    #expect(await waitUntil { !reader.isLoading })
    #expect(catalogue.tracks.count == 40)
    #expect($catalogue.loadError == nil)
    let again = SharedReader(.catalogue, default: Catalogue.empty)
    #expect(again.wrappedValue.tracks.count == 40, "one reference, loaded once")
  }
}
