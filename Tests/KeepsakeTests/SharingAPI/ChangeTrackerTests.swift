import Foundation
import Keepsake
import Testing

/// The public change tracker: what any test library uses to require that changes of shared
/// state are asserted, as swift-sharing's `SharedChangeTracker` lets one.
@Suite("Change tracker")
struct ChangeTrackerTests {
  @Test("It lists the values changed since it was installed, expected against actual")
  func listsChanges() {
    @Shared(.inMemory("count")) var count = 0
    @Shared(.inMemory("name")) var name = "a"
    let tracker = SharedChangeTracker.install()
    defer { tracker.uninstall() }
    #expect(!tracker.hasChanges)
    $count.withLock { $0 = 1 }
    let changes = tracker.changes
    #expect(changes.map(\.keyDescription) == [#".inMemory("count")"#])
    #expect(changes.first?.expected as? Int == 0)
    #expect(changes.first?.actual as? Int == 1)
    #expect(changes.first?.description == #".inMemory("count"): 0 → 1"#)
  }

  @Test("In swift-sharing's shape: a tracker made, changes made in track, asserted with assert")
  func swiftSharingShape() async {
    @Shared(.inMemory("count")) var count = 0
    let tracker = SharedChangeTracker()
    #expect(!tracker.hasChanges)
    tracker.track { $count.withLock { $0 += 1 } }
    #expect(tracker.hasChanges)
    #expect(tracker.changes.first?.description == #".inMemory("count"): 0 → 1"#)
    tracker.assert { $count.withLock { $0 = 1 } }
    #expect(!tracker.hasChanges)

    await tracker.track {
      await Task.yield()
      $count.withLock { $0 += 1 }
    }
    #expect(tracker.changes.first?.description == #".inMemory("count"): 1 → 2"#)
    tracker.reset()
    #expect(!tracker.hasChanges)
  }

  @Test("A reference made inside track is tracked from the value it was made with")
  func madeInsideTrack() {
    let tracker = SharedChangeTracker()
    tracker.track {
      @Shared(.inMemory("made-inside")) var value = "a"
      $value.withLock { $0 = "b" }
    }
    #expect(tracker.changes.map(\.description) == [#".inMemory("made-inside"): "a" → "b""#])
  }

  @Test("assert changes the expected value, never the live one, and then nothing is unasserted")
  func assertDescribesTheExpectation() {
    @Shared(.inMemory("count")) var count = 0
    let tracker = SharedChangeTracker.install()
    defer { tracker.uninstall() }
    $count.withLock { $0 = 2 }
    tracker.assert {
      #expect(count == 0, "inside assert a read sees the value last asserted")
      $count.withLock { $0 = 2 }
    }
    #expect(count == 2)
    #expect(!tracker.hasChanges)
    tracker.assert { $count.withLock { $0 = 3 } }
    #expect(count == 2, "the live value is untouched")
    #expect(tracker.changes.first?.expected as? Int == 3)
  }

  @Test("Changes from a detached task and keys made after installing are tracked")
  func detachedAndLaterKeys() async {
    let tracker = SharedChangeTracker.install()
    defer { tracker.uninstall() }
    @Shared(.inMemory("later")) var later = 0
    let shared = $later
    await Task.detached { shared.withLock { $0 += 1 } }.value
    #expect(tracker.changes.map(\.keyID) == [$later.keyID])
  }

  @Test("reset accepts every live value; after uninstall nothing is tracked")
  func resetAndUninstall() {
    @Shared(.inMemory("count")) var count = 0
    let tracker = SharedChangeTracker.install()
    $count.withLock { $0 = 1 }
    tracker.reset()
    #expect(!tracker.hasChanges)
    tracker.uninstall()
    tracker.assert { $count.withLock { $0 = 5 } }
    #expect(count == 5, "an uninstalled tracker no longer redirects changes")
  }

  struct Unequatable: Sendable {
    var items: [String]
  }

  @Test("Values that are not Equatable are compared by their dump")
  func unequatableValues() {
    @Shared(.inMemory("items")) var items = Unequatable(items: ["a"])
    let tracker = SharedChangeTracker.install()
    defer { tracker.uninstall() }
    $items.withLock { $0.items = ["a"] }
    #expect(!tracker.hasChanges, "the same contents")
    $items.withLock { $0.items.append("b") }
    #expect(tracker.hasChanges)
  }
}
