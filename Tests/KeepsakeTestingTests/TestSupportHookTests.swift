@_spi(Testing) import KeepsakeStore
import KeepsakeTesting
import Testing

@_spi(Testing) @testable import Keepsake

/// KeepsakeTesting plugs into the library through `TestSupportHook`'s conformances, which the
/// runtime finds only when KeepsakeTesting is linked: losing one would silently switch off XCTest
/// isolation, or the store's issues and manual clock.
@Suite("The library's hook for KeepsakeTesting")
struct TestSupportHookTests {
  @Test("Keepsake finds KeepsakeTesting's XCTest storage support")
  func xcTestStorageSupportIsFound() {
    #expect(TestSupportHook.xcTestStorageSupport != nil)
  }

  @Test("KeepsakeStore finds KeepsakeTesting's issues and manual clock")
  func storeTestSupportIsFound() {
    #expect((TestSupportHook.self as Any.Type) is any KeepsakeStoreTestSupport.Type)
  }
}
