import FaultInjection
import Foundation
import KeepsakeStore
import KeepsakeTesting
import Testing

// NB: the time limit turns a hang into a failure; it is not a speed requirement, so it is
// generous: on a loaded two-core machine, tests that block the cooperative pool can hold every
// test of the process up for minutes.
@MainActor
@Suite("Dependencies", .timeLimit(.minutes(5)))
struct DependencyTests {
  /// How long a receive may wait: these effects hop to detached tasks, which a loaded 2-core
  /// machine running the whole suite can delay past the default second; a passing test waits
  /// only as long as the action takes.
  static let patience: Duration = .seconds(30)

  @Test("Under test, UUIDs count from UUID(0) with nothing set, in effects and detached tasks too")
  func incrementingByDefault() async {
    let store = TestStore(initialState: Stamper.State()) { Stamper() }
    store.timeout = Self.patience

    await store.send(.stampTapped) { $0.ids = [UUID(0)] }
    await store.receive(
      .stamped(inEffect: UUID(1), capturedInDetached: UUID(2), carriedToDetached: UUID(3))
    ) {
      $0.ids = [UUID(0), UUID(1), UUID(2), UUID(3)]
    }
    await store.finish()
  }

  @Test("An override set between steps reaches the effect and the detached tasks it starts")
  func overrideReachesEffectsAndDetachedTasks() async {
    let store = TestStore(initialState: Stamper.State()) { Stamper() }
    store.timeout = Self.patience
    store.dependencies.uuid = .constant(UUID(42))

    await store.send(.stampTapped) { $0.ids = [UUID(42)] }
    await store.receive(
      .stamped(inEffect: UUID(42), capturedInDetached: UUID(42), carriedToDetached: UUID(42))
    ) {
      $0.ids = Array(repeating: UUID(42), count: 4)
    }
    await store.finish()
  }

  @Test("A reducer's dependency read in a detached task gets the values its store was made with")
  func detachedReadFallsBackToRememberedValues() async {
    let store = TestStore(initialState: Stamper.State()) {
      Stamper()
    } withDependencies: {
      $0.uuid = .constant(UUID(9))
    }
    store.timeout = Self.patience

    await store.send(.stampDetachedTapped)
    await store.receive(.stampedDetached(UUID(9))) { $0.ids = [UUID(9)] }
    await store.finish()
  }

  @Test("A withDependencies scope around a send wins for that action and its effects")
  func scopeAroundSendWins() async {
    let store = TestStore(initialState: Stamper.State()) { Stamper() }
    store.timeout = Self.patience

    await withDependencies {
      $0.uuid = .constant(UUID(5))
    } operation: {
      await store.send(.stampTapped) { $0.ids = [UUID(5)] }
    }
    await store.receive(
      .stamped(inEffect: UUID(5), capturedInDetached: UUID(5), carriedToDetached: UUID(5))
    ) {
      $0.ids = Array(repeating: UUID(5), count: 4)
    }
    await store.finish()
  }

  @Test("A store's own values win over a withDependencies scope around a send")
  func storeOwnValuesWinOverScope() async {
    let store = TestStore(initialState: Stamper.State()) {
      Stamper()
    } withDependencies: {
      $0.uuid = .constant(UUID(8))
    }
    store.timeout = Self.patience

    await withDependencies {
      $0.uuid = .constant(UUID(5))
      $0.date = .constant(Date(timeIntervalSince1970: 5))
    } operation: {
      await store.send(.stampTapped) { $0.ids = [UUID(8)] }
      await store.send(.dateTapped) { $0.date = Date(timeIntervalSince1970: 5) }
    }
    await store.receive(
      .stamped(inEffect: UUID(8), capturedInDetached: UUID(8), carriedToDetached: UUID(8))
    ) {
      $0.ids = Array(repeating: UUID(8), count: 4)
    }
    await store.finish()
  }

  @Test("A live Store runs its reducer and its effects with the dependencies it was made with")
  func storeCapturesItsDependencies() async {
    let store = Store(initialState: Stamper.State()) {
      Stamper()
    } withDependencies: {
      $0.uuid = .constant(UUID(3))
    }

    await store.send(.stampTapped).finish()

    #expect(store.state.ids == Array(repeating: UUID(3), count: 4))
  }

  @Test("An object made inside withDependencies keeps the values outside it")
  func objectRemembersItsScope() {
    final class Model {
      @Dependency(\.date) var date
    }
    let model = withDependencies {
      $0.date = .constant(Date(timeIntervalSince1970: 60))
    } operation: {
      Model()
    }

    #expect(model.date.now == Date(timeIntervalSince1970: 60))
  }

  @Test("Under test the date is constant and random numbers repeat for every store")
  func dateAndRandomAreDeterministic() async {
    func rolls() async -> [Int] {
      let store = TestStore(initialState: Stamper.State()) { Stamper() }
      store.timeout = Self.patience
      store.exhaustivity = .off
      await store.send(.dateTapped) { $0.date = Date(timeIntervalSince1970: 0) }
      await store.send(.rollTapped)
      await store.send(.rollTapped)
      return store.state.rolls
    }

    let first = await rolls()
    let second = await rolls()

    #expect(first == second)
    #expect(first.count == 2 && first[0] != first[1])
  }

  @Test("A seeded generator draws the same SplitMix64 sequence as FaultInjection's")
  func seededRandomMatchesSplitMix() {
    let ours = RandomGenerator.seeded(42)
    var reference = SeededRandom(seed: 42)
    #expect((0..<5).map { _ in ours.next() } == (0..<5).map { _ in reference.next() })
  }

  @Test("Under test the clocks are manual: time moves only when the test advances it")
  func clocksAreManual() async throws {
    let store = TestStore(initialState: Stamper.State()) { Stamper() }
    store.timeout = Self.patience
    let clock = try #require(store.dependencies.continuousClock as? ManualClock)
    #expect(store.dependencies.suspendingClock is ManualClock)

    await store.send(.timerStarted)
    await clock.waitForSleep()
    clock.advance(by: .seconds(1))

    await store.receive(.tick) { $0.ticks = 1 }
    await store.finish()
  }

  @Test(
    "UUID(_:) writes the integer in the last group, in hexadecimal",
    arguments: [
      (0, "00000000-0000-0000-0000-000000000000"),
      (1, "00000000-0000-0000-0000-000000000001"),
      (255, "00000000-0000-0000-0000-0000000000FF"),
      (0xFFFF_FFFF_FFFF, "00000000-0000-0000-0000-FFFFFFFFFFFF"),
    ])
  func uuidFromInteger(_ value: Int, _ text: String) {
    #expect(UUID(value).uuidString == text)
  }
}
