import Foundation
import Keepsake
import Observation
import Synchronization
import Testing

/// Read-only projections (`$user.id` for a `let`), derived readers (`$count.read { ... }`) and
/// comparing readers, as swift-sharing users write them.
@Suite("Read-only projections and derived readers")
struct ReadOnlyProjectionTests {
  struct User: Equatable, Sendable {
    let id: Int
    var name = ""
    /// A get-only computed member.
    var initial: Character? { name.first }
  }

  @Test("A let member projects into a reader that follows its parent")
  func letMember() {
    @Shared(value: User(id: 1)) var user
    @SharedReader var id: Int
    _id = $user.id
    #expect(id == 1)
    $user.withLock { $0 = User(id: 42) }
    #expect(id == 42)
  }

  @Test("A get-only computed member projects into a reader")
  func computedMember() {
    @Shared(value: User(id: 1, name: "Blob")) var user
    let initial = $user.initial
    #expect(initial.wrappedValue == "B")
    $user.name.withLock { $0 = "Ada" }
    #expect(initial.wrappedValue == "A")
  }

  @Test("A reader projects through read-only key paths, also of a projection")
  func readerProjections() {
    @Shared(value: [User(id: 1, name: "Blob")]) var users
    let reader = SharedReader($users)
    let count = reader.count
    let firstName = reader[0].name
    $users.withLock { $0.append(User(id: 2)) }
    #expect(count.wrappedValue == 2)
    #expect(firstName.wrappedValue == "Blob")
  }

  @Test("A read-only member made after a rebinding, or of a projection, reads its own part")
  func readOnlyMemberAfterRebinding() {
    @Shared(value: User(id: 1, name: "Blob")) var user
    let before = $user.initial
    let other = Shared(value: User(id: 2, name: "Ada"))
    $user = other
    let id = $user.id
    let initial = $user.initial
    #expect(id.wrappedValue == 2)
    #expect(initial.wrappedValue == "A")
    $user = Shared(value: User(id: 3, name: "Lin"))
    other.withLock { $0.name = "Grace" }
    #expect(id.wrappedValue == 2, "it keeps the value it was made from")
    #expect(initial.wrappedValue == "G")
    #expect(before.wrappedValue == "B")
    @Shared(value: [User(id: 1, name: "Blob")]) var users
    let firstInitial = SharedReader($users)[0].initial
    $users.withLock { $0[0].name = "Ada" }
    #expect(firstInitial.wrappedValue == "A")
  }

  @Test("read derives a reader from a Shared and from a reader, following each change")
  func derivedReaders() {
    @Shared(value: 0) var count
    let isZero = $count.read { $0 == 0 }
    let isEven = $count.reader.read { $0.isMultiple(of: 2) }.read { $0 ? "even" : "odd" }
    #expect(isZero.wrappedValue)
    #expect(isEven.wrappedValue == "even")
    $count.withLock { $0 = 3 }
    #expect(!isZero.wrappedValue)
    #expect(isEven.wrappedValue == "odd")
  }

  @Test("Observers of a derived reader are told when its parent changes")
  func derivedObservation() {
    @Shared(value: 0) var count
    let isZero = $count.read { $0 == 0 }
    let told = Mutex(0)
    withObservationTracking {
      _ = isZero.wrappedValue
    } onChange: {
      told.withLock { $0 += 1 }
    }
    $count.withLock { $0 += 1 }
    #expect(told.withLock { $0 } == 1)
  }

  @Test("A derived reader forwards its root's key, errors and loading state")
  func derivedForwardsTheRoot() {
    @Shared(.inMemory("count")) var count = 0
    let isZero = $count.read { $0 == 0 }
    #expect(isZero.keyID == $count.keyID)
    #expect(isZero.loadError == nil)
    #expect(!isZero.isLoading)
  }

  @Test("Readers are equal when their values are, whatever their keys")
  func equatableReaders() {
    @Shared(value: 0) var base
    let doubled = $base.read { $0 * 2 }
    let tripled = $base.read { $0 * 3 }
    #expect(doubled == tripled)
    $base.withLock { $0 += 1 }
    #expect(doubled != tripled)
    #expect(SharedReader(value: 2) == doubled)
  }
}
