import Foundation
import Keepsake
import KeepsakeTesting
import Testing

/// What `$value.values` delivers when the `Shared` is pointed at another key: swift-sharing's
/// publisher gives `[0, 42, 0, 1729]` for a new key and `[0, 42, 42, 1729]` for the same one.
@Suite("Rebinding and values streams")
struct RebindingStreamTests {
  @Test("Pointed at another key, values delivers its value, then only its changes")
  func anotherKey() async {
    @Shared(.appStorage("count")) var value = 0
    let values = StreamRecording($value.values)
    #expect(await waitUntil { values.elements == [0] })
    $value.withLock { $0 = 42 }
    #expect(await waitUntil { values.elements == [0, 42] })
    $value = Shared(.appStorage("anotherCount"), default: 0)
    #expect(await waitUntil { values.elements == [0, 42, 0] })
    $value.withLock { $0 = 1729 }
    #expect(await waitUntil { values.elements == [0, 42, 0, 1729] })
    @Shared(.appStorage("count")) var old = 0
    $old.withLock { $0 = 123 }
    $value.withLock { $0 = 456 }
    #expect(
      await waitUntil { values.elements == [0, 42, 0, 1729, 456] },
      "the old key's change was not delivered")
  }

  @Test("Pointed at the same key again, values repeats the value and keeps following it")
  func sameKey() async {
    @Shared(.inMemory("count")) var value = 0
    let values = StreamRecording($value.values)
    #expect(await waitUntil { values.elements == [0] })
    $value.withLock { $0 = 42 }
    #expect(await waitUntil { values.elements == [0, 42] })
    $value = Shared(.inMemory("count"), default: 0)
    #expect(await waitUntil { values.elements == [0, 42, 42] })
    $value.withLock { $0 = 1729 }
    #expect(await waitUntil { values.elements == [0, 42, 42, 1729] })
  }

  @Test("load(_:) moves the stream of a copy taken before to the new key")
  func loadMovesCopiesStreams() async throws {
    @Shared(.inMemory("other")) var other = 5
    @Shared(.inMemory("count")) var value = 0
    let values = StreamRecording($value.values)
    #expect(await waitUntil { values.elements == [0] })
    try await $value.load(.inMemory("other"))
    #expect(await waitUntil { values.elements == [0, 5] })
    $other.withLock { $0 = 6 }
    #expect(
      await waitUntil { values.elements == [0, 5, 6] },
      "a change of the new key through another Shared")
  }

  @Test("After load(_:) of a key with a stored value, values delivers it, never the old one again")
  func loadOtherKeyWithAValue() async throws {
    @Shared(.appStorage("anotherCount")) var other = 5
    @Shared(.appStorage("count")) var value = 0
    let values = StreamRecording($value.values)
    #expect(await waitUntil { values.elements == [0] })
    $value.withLock { $0 = 42 }
    #expect(await waitUntil { values.elements == [0, 42] })
    try await $value.load(.appStorage("anotherCount"))
    #expect(await waitUntil { values.elements == [0, 42, 5] }, "\(values.elements)")
    @Shared(.appStorage("count")) var old = 0
    $old.withLock { $0 = 123 }
    $other.withLock { $0 = 456 }
    #expect(await waitUntil { values.elements == [0, 42, 5, 456] }, "\(values.elements)")
  }

  @Test(
    "After load(_:) of a key with nothing stored, values gives this Shared's default and follows the new key only"
  )
  func loadOtherKeyFollowsOnlyIt() async throws {
    @Shared(.appStorage("count")) var value = 0
    let values = StreamRecording($value.values)
    #expect(await waitUntil { values.elements == [0] })
    $value.withLock { $0 = 42 }
    #expect(await waitUntil { values.elements == [0, 42] })
    // NB: unlike swift-sharing, which keeps 42: the new key's data is not the old key's.
    try await $value.load(.appStorage("anotherCount"))
    #expect(await waitUntil { values.elements == [0, 42, 0] })
    $value.withLock { $0 = 1729 }
    #expect(await waitUntil { values.elements == [0, 42, 0, 1729] })
    @Shared(.appStorage("count")) var old = 0
    $old.withLock { $0 = 123 }
    @Shared(.appStorage("anotherCount")) var new = 0
    $new.withLock { $0 = 456 }
    #expect(
      await waitUntil { values.elements == [0, 42, 0, 1729, 456] },
      "\(values.elements): the old key's change must not be delivered")
    #expect(value == 456)
  }
}
