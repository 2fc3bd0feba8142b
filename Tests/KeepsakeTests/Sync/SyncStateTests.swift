import Testing

@testable import Keepsake

/// A sync state keeps the reference's default untyped: the default it gives back is the one
/// attached, exactly, an optional value's `nil` too, and none before one is attached.
@Suite("Sync state")
struct SyncStateTests {
  @Test("No default before one is attached, an optional value's too")
  func noDefaultBeforeAttach() {
    let state = SyncState()
    #expect(state.fallback(as: Int.self) == nil)
    // NB: `Int??`: `.none` is "not attached"; `.some(nil)` would be an attached `nil`.
    let optional: Int?? = state.fallback(as: Int?.self)
    #expect(optional == .none)
  }

  @Test("The attached default comes back as it was, nil included")
  func attachedDefault() {
    let state = SyncState()
    state.attach(fallback: Int?.none, report: { _ in })
    let optional: Int?? = state.fallback(as: Int?.self)
    #expect(optional == .some(.none))
    let other = SyncState()
    other.attach(fallback: [1, 2], report: { _ in })
    #expect(other.fallback(as: [Int].self) == [1, 2])
    #expect(other.fallback(as: String.self) == nil)
  }
}
